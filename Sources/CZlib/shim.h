// The system zlib (zlib1g-dev; part of every Apple SDK), plus one-shot gzip helpers: deflateInit2 and
// inflateInit2 are macros, which Swift does not import.
#ifndef ALSTATS_CZLIB_SHIM_H
#define ALSTATS_CZLIB_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

/// The most bytes czlib_gzip may write for `count` input bytes.
static inline size_t czlib_gzip_bound(size_t count) {
    // deflateBound's formula for the default settings, plus the gzip header and trailer (18 bytes) and slack.
    return count + (count >> 12) + (count >> 14) + (count >> 25) + 13 + 18 + 64;
}

/// Compresses `count` bytes into a gzip member in `output` (at least czlib_gzip_bound(count) bytes).
/// Returns the compressed length, or 0 on failure.
static inline size_t czlib_gzip(const uint8_t *input, size_t count, uint8_t *output, size_t capacity, int level) {
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (deflateInit2(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return 0;
    stream.next_in = (Bytef *)input;
    stream.avail_in = (uInt)count;
    stream.next_out = output;
    stream.avail_out = (uInt)capacity;
    int status = deflate(&stream, Z_FINISH);
    size_t written = stream.total_out;
    deflateEnd(&stream);
    return status == Z_STREAM_END ? written : 0;
}

/// Decompresses a gzip stream of `count` bytes (one member, or several one after another, as `cat a.gz b.gz`
/// makes) into `output`. Returns the decompressed length; -1 when the stream is broken: not gzip, corrupt, a
/// CRC-32 or length in a trailer that does not match, or input that ends before a member's trailer (a body cut
/// short); -2 when the result would exceed `capacity`. Nothing is returned of a broken stream.
static inline long czlib_gunzip(const uint8_t *input, size_t count, uint8_t *output, size_t capacity) {
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (count == 0 || inflateInit2(&stream, 15 + 16) != Z_OK) return -1;
    stream.next_in = (Bytef *)input;
    stream.avail_in = (uInt)count;
    stream.next_out = output;
    stream.avail_out = (uInt)capacity;
    long result = -1;
    for (;;) {
        int status = inflate(&stream, Z_FINISH);
        if (status == Z_STREAM_END) {
            // zlib has checked this member's trailer; another member may follow.
            if (stream.avail_in == 0) { result = (long)stream.total_out; break; }
            uLong written = stream.total_out;
            if (inflateReset(&stream) != Z_OK) break;
            stream.total_out = written;
            continue;
        }
        if ((status == Z_BUF_ERROR || status == Z_OK) && stream.avail_out == 0) result = -2;
        break;  // Z_BUF_ERROR with input left unread or none: the stream ended before its trailer
    }
    inflateEnd(&stream);
    return result;
}

#endif
