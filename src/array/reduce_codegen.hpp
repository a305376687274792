// Generated CUDA C for reductions: a map (the value of element i), a binary
// reduce (a, b), a neutral element and a post step (the accumulated value `a`
// to the output), turned into a single-launch full reduction or an axis
// reduction. The same generator serves the built-in reductions (sum, argmin,
// ...), fused reductions over expressions, and ReductionKernel.
#pragma once

#include <string>

namespace cudakit::detail {

// Threads per block of every generated reduction (a power of two).
inline constexpr unsigned reduce_block = 256;

struct ReductionSpec {
  std::string name;         // kernel name (a C identifier)
  std::string acc_type;     // C type of the accumulator
  std::string out_type;     // C type of the output element
  std::string neutral;      // expression of acc_type
  std::string reduce_expr;  // combines `a` and `b` (both acc_type)
  // Value of element `i` (long long, the map's flat index) converted to
  // acc_type; may also use `r`, the position inside the reduced index space
  // (what argmin/argmax report).
  std::string map_expr;
  // The output from the accumulated `a`; may use `ck_count` (elements reduced).
  std::string post_expr = "a";
  std::string params;    // extra kernel parameters, "const float* x, int k" (may be empty)
  std::string preamble;  // definitions placed before the kernel
  // Compensated (Kahan) summation in each thread's serial loop; only for
  // reduce_expr "a + b" on floating types.
  bool compensated = false;
};

// Full reduction over i in [ck_first, ck_first + n) in ONE launch (r = i - ck_first):
//   NAME(<params>, OUT* ck_out, ACC* ck_partials, unsigned int* ck_counter, long long n,
//        long long ck_first)
// Each block reduces a grid-stride share into ck_partials[blockIdx.x]; the last
// block to finish (atomic counter after a fence) reduces the partials in a
// fixed order, writes ck_out[0] and resets the counter to 0 for the next use.
// Launch with reduce_block threads and at most as many blocks as ck_partials holds.
std::string full_reduction_source(const ReductionSpec& spec);

// The full sum of one contiguous float / double operand x (or of x[i] * y[i]
// when product_of_two), 16-byte aligned, with 16-byte vector loads:
//   NAME(const T* x[, const T* y], OUT* ck_out, ACC* ck_partials, unsigned int* ck_counter, long
//   long n)
// spec.map_expr is not used; compensated summation always. Launch like
// full_reduction_source.
std::string vector_reduction_source(const ReductionSpec& spec, bool product_of_two, bool f64);

// Axis reductions run over a map whose index space puts the kept axes first
// and the reduced ones last, so element i = o * ck_n_red + r belongs to
// output o at reduced position r.
//
// One block per output (best when the reduced axes are the innermost in
// memory): NAME(<params>, OUT* ck_out, long long ck_n_out, long long ck_n_red).
// Launch with reduce_block threads, any number of blocks.
std::string inner_reduction_source(const ReductionSpec& spec);

// Axis reduction, 32 outputs per block along x and 8 threads per output along
// y (best when the innermost axis is kept, so neighbouring threads read
// neighbouring elements). Same parameters; launch with block (32, 8).
std::string outer_reduction_source(const ReductionSpec& spec);

}  // namespace cudakit::detail
