// The module counts its heap per thread as the fdsim executable does (sim/engine/heap_account.h),
// so that memory budgets hold in Python too. This works only because the module links its own
// static copy of the C++ standard library with every symbol bound inside the module
// (python/CMakeLists.txt: -static-libstdc++, -Bsymbolic): every operator new and delete of
// fdsim's code and of the library code it calls is this one, whatever other extension loaded
// a shared libstdc++ before. A block is never allocated by one allocator and freed by the other.
#include "sim/engine/counting_new.inc"
