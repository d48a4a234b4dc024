// libpq for the raw PostgreSQL baselines (P1–P3). Debian's libpq-dev puts libpq-fe.h under
// /usr/include/postgresql; other systems put it on the include path itself.
#if __has_include(<libpq-fe.h>)
#include <libpq-fe.h>
#else
#include <postgresql/libpq-fe.h>
#endif
