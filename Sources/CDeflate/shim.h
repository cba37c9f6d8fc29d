// The system libdeflate (libdeflate-dev): whole-buffer gzip at about twice zlib's speed, for the uploader's batches
// (Sources/EventUpload/Gzip.swift) and the collector's bodies (Sources/EventServer/RequestBodyReader.swift) on Linux.
#ifndef ALSTATS_CDEFLATE_SHIM_H
#define ALSTATS_CDEFLATE_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <libdeflate.h>

/// Decompresses a gzip stream of `count` bytes (one member, or several one after another, as `cat a.gz b.gz`
/// makes) into `output`: the contract of czlib_gunzip (Sources/CZlib/shim.h). Returns the decompressed length; -1
/// when the stream is broken: not gzip, corrupt, a CRC-32 or length in a trailer that does not match, or input that
/// ends before a member's trailer (a body cut short); -2 when the result would exceed `capacity`.
static inline long cdeflate_gunzip(const uint8_t *input, size_t count, uint8_t *output, size_t capacity) {
    if (count == 0) return -1;
    struct libdeflate_decompressor *decompressor = libdeflate_alloc_decompressor();
    if (decompressor == NULL) return -1;
    size_t read = 0, written = 0;
    long result = -1;
    for (;;) {
        size_t memberIn = 0, memberOut = 0;
        enum libdeflate_result status = libdeflate_gzip_decompress_ex(
            decompressor, input + read, count - read, output + written, capacity - written, &memberIn, &memberOut);
        if (status == LIBDEFLATE_INSUFFICIENT_SPACE) { result = -2; break; }
        // libdeflate has checked this member's trailer (CRC-32 and length); another member may follow.
        if (status != LIBDEFLATE_SUCCESS || memberIn == 0) break;
        read += memberIn;
        written += memberOut;
        if (read == count) { result = (long)written; break; }
    }
    libdeflate_free_decompressor(decompressor);
    return result;
}

#endif
