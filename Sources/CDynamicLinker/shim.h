// dladdr, which glibc declares only with _GNU_SOURCE: the AlstatsSQLite extension asks which loaded image an
// address belongs to, to check that the program loading it uses the same libsqlite3.
#ifndef ALSTATS_CDYNAMICLINKER_SHIM_H
#define ALSTATS_CDYNAMICLINKER_SHIM_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>

/// The base address of the loaded image (executable or shared library) that holds `address`, or NULL.
static inline const void *cdynamiclinker_image_base(const void *address) {
    Dl_info info;
    return dladdr(address, &info) ? info.dli_fbase : 0;
}

#endif
