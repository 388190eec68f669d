// The fdsim executable counts its heap per thread (sim/engine/heap_account.h) so that run
// budgets can hold a simulation to its memory estimate.
#include "sim/engine/counting_new.inc"
