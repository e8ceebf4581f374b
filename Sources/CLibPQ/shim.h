#ifndef NAVSTATE_CLIBPQ_SHIM_H
#define NAVSTATE_CLIBPQ_SHIM_H
// Debian's libpq-dev puts the header under postgresql/; pkg-config names that directory.
#include <libpq-fe.h>
#include <poll.h>
#endif
