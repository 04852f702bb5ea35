// An op file that includes the CPU backend's private folder, and a higher layer allowed to include lower ones.
#include "kernels/cpu/vec.h"
#include "kernels/slots/bad_kernels.h"
