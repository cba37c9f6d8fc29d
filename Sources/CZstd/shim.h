// The system Zstandard library (libzstd-dev): its one-shot compression with a prepared dictionary, and its
// dictionary trainer (zdict.h), for the SQLite store's packed event fields (docs/design/storage-layout.md).
#ifndef ALSTATS_CZSTD_SHIM_H
#define ALSTATS_CZSTD_SHIM_H

#include <zstd.h>
#include <zdict.h>

#endif
