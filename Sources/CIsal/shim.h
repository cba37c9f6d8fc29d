// The system ISA-L (libisal-dev, Intel's Intelligent Storage Acceleration Library): gzip on Linux for the
// uploader's batches (Sources/EventUpload/Gzip.swift), written at level 1 at twice libdeflate's speed and four
// times zlib's, and for the collector's bodies (Sources/EventServer/RequestBodyReader.swift), read at libdeflate's.
#ifndef ALSTATS_CISAL_SHIM_H
#define ALSTATS_CISAL_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <isa-l/igzip_lib.h>

/// The bytes of the working buffer `cisal_gzip` needs at level 1.
static const size_t cisal_level1_buffer_size = ISAL_DEF_LVL1_DEFAULT;

/// Compresses `count` bytes of `input` into one gzip member at ISA-L's level 1, with `buffer` (of
/// `cisal_level1_buffer_size` bytes, used by one call at a time) as its working memory. Returns the length
/// written, or 0 when it does not fit in `capacity` (or ISA-L fails).
static inline size_t cisal_gzip(
    const uint8_t *input, size_t count, uint8_t *output, size_t capacity, uint8_t *buffer) {
    if (count > UINT32_MAX || capacity > UINT32_MAX) return 0;
    struct isal_zstream stream;
    isal_deflate_init(&stream);
    stream.level = 1;
    stream.level_buf = buffer;
    stream.level_buf_size = (uint32_t)cisal_level1_buffer_size;
    stream.gzip_flag = IGZIP_GZIP;
    stream.end_of_stream = 1;
    stream.flush = NO_FLUSH;
    stream.next_in = (uint8_t *)input;
    stream.avail_in = (uint32_t)count;
    stream.next_out = output;
    stream.avail_out = (uint32_t)capacity;
    if (isal_deflate(&stream) != COMP_OK || stream.internal_state.state != ZSTATE_END) return 0;
    return stream.total_out;
}

/// Decompresses a gzip stream of `count` bytes (one member, or several one after another, as `cat a.gz b.gz`
/// makes) into `output`: the contract of czlib_gunzip (Sources/CZlib/shim.h). Returns the decompressed length; -1
/// when the stream is broken: not gzip, corrupt, a CRC-32 or length in a trailer that does not match, or input that
/// ends before a member's trailer (a body cut short); -2 when the result would exceed `capacity`.
static inline long cisal_gunzip(const uint8_t *input, size_t count, uint8_t *output, size_t capacity) {
    if (count == 0 || count > UINT32_MAX || capacity > UINT32_MAX) return -1;
    struct inflate_state *state = (struct inflate_state *)malloc(sizeof(struct inflate_state));
    if (state == NULL) return -1;
    isal_inflate_init(state);
    state->crc_flag = ISAL_GZIP;
    state->next_in = (uint8_t *)input;
    state->avail_in = (uint32_t)count;
    state->next_out = output;
    state->avail_out = (uint32_t)capacity;
    long result = -1;
    for (;;) {
        // A header with a reserved flag bit set is not gzip (zlib and libdeflate refuse it; ISA-L does not look).
        if (state->avail_in >= 4 && (state->next_in[3] & 0xE0) != 0) break;
        if (isal_inflate(state) != ISAL_DECOMP_OK) break;
        if (state->block_state != ISAL_BLOCK_FINISH) {
            // Stopped short of a member's end (its trailer read and checked): out of room, or out of input.
            if (state->avail_out == 0) result = -2;
            break;
        }
        // ISA-L has checked this member's trailer (CRC-32 and length); another member may follow.
        if (state->avail_in == 0) {
            result = (long)(capacity - state->avail_out);
            break;
        }
        uint8_t *next_out = state->next_out;
        uint32_t avail_out = state->avail_out;
        uint8_t *next_in = state->next_in;
        uint32_t avail_in = state->avail_in;
        isal_inflate_reset(state);
        state->crc_flag = ISAL_GZIP;
        state->next_in = next_in;
        state->avail_in = avail_in;
        state->next_out = next_out;
        state->avail_out = avail_out;
    }
    free(state);
    return result;
}

#endif
