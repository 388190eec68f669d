// The test programs that check memory budgets count their heap like the fdsim executable
// (sim/engine/heap_account.h).
#include "sim/engine/counting_new.inc"
