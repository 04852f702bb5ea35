#pragma once
// Thread counts for the OpenMP libraries Ember calls (Note [OpenMP libraries]
// in openmp_calls.cpp).

namespace ember::runtime {

// Call right before handing work to OpenBLAS, LAPACK or oneDNN: sets the
// calling thread's OpenMP thread count to what Ember wants for it now and
// returns it (1 inside a parallel loop or while the cores are shared, else
// get_num_threads()).
int prepare_openmp_library_call();

}  // namespace ember::runtime
