// glibc's allocator tuning (mallopt and its M_ parameters): <malloc.h> is not part of Swift's Glibc module.
#include <malloc.h>
