#include "array/reduce_codegen.hpp"

#include "array/coherent_load.hpp"

namespace cudakit::detail {

namespace {

std::string param_prefix(const ReductionSpec& spec) {
  return spec.params.empty() ? std::string() : spec.params + ", ";
}

std::string common_head(const ReductionSpec& spec) {
  std::string s;
  if (!spec.preamble.empty()) s += spec.preamble + "\n";
  s += "typedef " + spec.acc_type + " ck_acc_t;\n";
  s += "typedef " + spec.out_type + " ck_out_t;\n\n";
  s += "__device__ __forceinline__ ck_acc_t ck_reduce(ck_acc_t a, ck_acc_t b) {\n";
  s += "  return (" + spec.reduce_expr + ");\n}\n\n";
  return s;
}

// Accumulates `value` (an expression) into `acc`, compensated when asked.
// A compensated sum also keeps a plain one beside it (an add that is not on
// the compensated chain, so it costs no latency): once the running sum is
// infinite the correction (t - acc) - y is inf - inf = NaN, and
// finish_compensated() then takes the plain sum, which is the inf NumPy
// gives for sum([1, inf, 2]) (a NaN input leaves both NaN).
std::string accumulate(const ReductionSpec& spec, const std::string& value) {
  if (spec.compensated)
    return "{\n"
           "        const ck_acc_t ck_v = (ck_acc_t)(" +
           value +
           ");\n"
           "        ck_plain += ck_v;\n"
           "        const ck_acc_t ck_y = ck_v - ck_comp;\n"
           "        const ck_acc_t ck_t = acc + ck_y;\n"
           "        ck_comp = (ck_t - acc) - ck_y;\n"
           "        acc = ck_t;\n"
           "      }\n";
  return "acc = ck_reduce(acc, (ck_acc_t)(" + value + "));\n";
}

// The declarations a compensated thread sum needs, and its result.
std::string declare_compensated(const ReductionSpec& spec, const std::string& indent) {
  return spec.compensated ? indent + "ck_acc_t ck_comp = 0, ck_plain = 0;\n" : "";
}
std::string finish_compensated(const ReductionSpec& spec, const std::string& indent) {
  return spec.compensated ? indent + "if (acc != acc && ck_plain == ck_plain) acc = ck_plain;\n"
                          : "";
}

// Tree reduction of ck_shared[0 .. blockDim.x) into ck_shared[0]; every
// thread of the block takes part (barriers).
const char* block_tree =
    "  for (unsigned int ck_s = blockDim.x / 2; ck_s > 0; ck_s >>= 1) {\n"
    "    if (threadIdx.x < ck_s)\n"
    "      ck_shared[threadIdx.x] = ck_reduce(ck_shared[threadIdx.x], ck_shared[threadIdx.x + "
    "ck_s]);\n"
    "    __syncthreads();\n"
    "  }\n";

std::string load_partial_source() {
  return coherent_load_source("ck_load_partial", "ck_acc_t") + "\n";
}

// The end of a single-launch reduction: block tree, partial, ticket, and the
// last block's combine of the partials in block order.
std::string finish_full_reduction(const ReductionSpec& spec) {
  std::string s = finish_compensated(spec, "  ");
  s += "  ck_shared[threadIdx.x] = acc;\n  __syncthreads();\n";
  s += block_tree;
  s += "  if (threadIdx.x == 0) {\n"
       "    ck_partials[blockIdx.x] = ck_shared[0];\n"
       "    __threadfence();  // the partial is visible before the counter says so\n"
       "    const unsigned int ck_ticket = atomicAdd(ck_counter, 1u);\n"
       "    ck_is_last = (ck_ticket == gridDim.x - 1);\n"
       "  }\n"
       "  __syncthreads();\n"
       "  if (!ck_is_last) return;\n"
       "  __threadfence();\n";
  s += "  acc = " + spec.neutral + ";\n";
  s += "  for (unsigned int ck_b = threadIdx.x; ck_b < gridDim.x; ck_b += blockDim.x)\n"
       "    acc = ck_reduce(acc, ck_load_partial(ck_partials + ck_b));\n";
  s += "  ck_shared[threadIdx.x] = acc;\n  __syncthreads();\n";
  s += block_tree;
  s += "  if (threadIdx.x == 0) {\n"
       "    const ck_acc_t a = ck_shared[0];\n"
       "    const long long ck_count = n;\n"
       "    (void)ck_count;\n"
       "    ck_out[0] = (ck_out_t)(" +
       spec.post_expr +
       ");\n"
       "    *ck_counter = 0u;  // ready for the next launch on this stream\n"
       "  }\n}\n";
  return s;
}

}  // namespace

std::string full_reduction_source(const ReductionSpec& spec) {
  std::string s = common_head(spec);
  s += load_partial_source();
  s += "// One launch: per-block partials, then the last block to finish combines\n"
       "// them in block order, so the result depends only on the input and the grid.\n";
  s += "extern \"C\" __global__ void " + spec.name + "(" + param_prefix(spec) +
       "ck_out_t* ck_out, ck_acc_t* ck_partials, unsigned int* ck_counter, long long n,\n"
       "    long long ck_first) {\n";
  s += "  __shared__ ck_acc_t ck_shared[" + std::to_string(reduce_block) + "];\n";
  s += "  __shared__ int ck_is_last;\n";
  s += "  ck_acc_t acc = " + spec.neutral + ";\n";
  s += declare_compensated(spec, "  ");
  s += "  // Four elements per thread and step, a block-width apart: coalesced, and\n"
       "  // four loads in flight per thread.\n";
  s += "  const long long ck_step = (long long)gridDim.x * blockDim.x * 4;\n";
  s += "  long long ck_base = (long long)blockIdx.x * blockDim.x * 4 + threadIdx.x;\n";
  s += "  for (; ck_base + 3LL * blockDim.x < n; ck_base += ck_step) {\n";
  s += "    #pragma unroll\n";
  s += "    for (int ck_j = 0; ck_j < 4; ++ck_j) {\n";
  s += "      const long long r = ck_base + (long long)ck_j * blockDim.x;\n";
  s += "      const long long i = ck_first + r;\n";
  s += "      " + accumulate(spec, spec.map_expr);
  s += "    }\n  }\n";
  s += "  for (int ck_j = 0; ck_j < 4; ++ck_j) {\n";
  s += "    const long long r = ck_base + (long long)ck_j * blockDim.x;\n";
  s += "    const long long i = ck_first + r;\n";
  s += "    if (r < n) " + accumulate(spec, spec.map_expr);
  s += "  }\n";
  s += finish_full_reduction(spec);
  return s;
}

std::string vector_reduction_source(const ReductionSpec& spec, bool product_of_two, bool f64) {
  std::string s = common_head(spec);
  s += load_partial_source();
  const std::string scalar = f64 ? "double" : "float";
  const int width = f64 ? 2 : 4;
  s += "// 16-byte loads of contiguous, aligned operands.\n";
  s += "struct alignas(16) ck_vec { " + scalar + " v[" + std::to_string(width) + "]; };\n\n";
  s += "__device__ __forceinline__ void ck_kahan(ck_acc_t& acc, ck_acc_t& comp, ck_acc_t& plain,\n"
       "                                         ck_acc_t value) {\n"
       "  plain += value;\n"
       "  const ck_acc_t y = value - comp;\n"
       "  const ck_acc_t t = acc + y;\n"
       "  comp = (t - acc) - y;\n"
       "  acc = t;\n"
       "}\n\n";
  const std::string operands = product_of_two ? "const " + scalar + "* x, const " + scalar + "* y"
                                              : "const " + scalar + "* x";
  auto value = [&](const std::string& a, const std::string& b) {
    return product_of_two ? "(ck_acc_t)" + a + " * (ck_acc_t)" + b : "(ck_acc_t)" + a;
  };
  s += "// One launch: per-block partials of compensated sums, then the last block\n"
       "// to finish combines them in block order.\n";
  s += "extern \"C\" __global__ void " + spec.name + "(" + operands +
       ", ck_out_t* ck_out, ck_acc_t* ck_partials, unsigned int* ck_counter, long long n) {\n";
  s += "  __shared__ ck_acc_t ck_shared[" + std::to_string(reduce_block) + "];\n";
  s += "  __shared__ int ck_is_last;\n";
  s += "  ck_acc_t acc = " + spec.neutral + ", ck_comp = 0, ck_plain = 0;\n";
  s += "  const ck_vec* xv = (const ck_vec*)x;\n";
  if (product_of_two) s += "  const ck_vec* yv = (const ck_vec*)y;\n";
  s += "  const long long nv = n / " + std::to_string(width) + ";\n";
  s += "  const long long stride = (long long)gridDim.x * blockDim.x;\n";
  s += "  long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n";
  s += "  // Two vectors per thread and step: more bytes in flight.\n";
  s += "  for (; v + stride < nv; v += 2 * stride) {\n";
  s += "    const ck_vec a0 = xv[v], a1 = xv[v + stride];\n";
  if (product_of_two) s += "    const ck_vec b0 = yv[v], b1 = yv[v + stride];\n";
  s += "    #pragma unroll\n";
  s += "    for (int j = 0; j < " + std::to_string(width) +
       "; ++j) ck_kahan(acc, ck_comp, ck_plain, " + value("a0.v[j]", "b0.v[j]") + ");\n";
  s += "    #pragma unroll\n";
  s += "    for (int j = 0; j < " + std::to_string(width) +
       "; ++j) ck_kahan(acc, ck_comp, ck_plain, " + value("a1.v[j]", "b1.v[j]") + ");\n";
  s += "  }\n";
  s += "  for (; v < nv; v += stride) {\n";
  s += "    const ck_vec a0 = xv[v];\n";
  if (product_of_two) s += "    const ck_vec b0 = yv[v];\n";
  s += "    for (int j = 0; j < " + std::to_string(width) +
       "; ++j) ck_kahan(acc, ck_comp, ck_plain, " + value("a0.v[j]", "b0.v[j]") + ");\n";
  s += "  }\n";
  s += "  // The last n % " + std::to_string(width) + " elements.\n";
  s += "  const long long ck_t = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n";
  s += "  if (ck_t < n - nv * " + std::to_string(width) + ") {\n";
  s += "    const long long i = nv * " + std::to_string(width) + " + ck_t;\n";
  s += "    ck_kahan(acc, ck_comp, ck_plain, " + value("x[i]", "y[i]") + ");\n";
  s += "  }\n";
  // Every sum here is compensated, whatever the spec says.
  ReductionSpec compensated = spec;
  compensated.compensated = true;
  s += finish_full_reduction(compensated);  // closes the kernel
  return s;
}

std::string inner_reduction_source(const ReductionSpec& spec) {
  std::string s = common_head(spec);
  s += "// One block per output; the block's threads stride over the reduced positions.\n";
  s += "extern \"C\" __global__ void " + spec.name + "(" + param_prefix(spec) +
       "ck_out_t* ck_out, long long ck_n_out, long long ck_n_red) {\n";
  s += "  __shared__ ck_acc_t ck_shared[" + std::to_string(reduce_block) + "];\n";
  s += "  for (long long ck_o = blockIdx.x; ck_o < ck_n_out; ck_o += gridDim.x) {\n";
  s += "    const long long ck_keep = ck_o * ck_n_red;\n";
  s += "    ck_acc_t acc = " + spec.neutral + ";\n";
  s += declare_compensated(spec, "    ");
  s += "    for (long long r = threadIdx.x; r < ck_n_red; r += blockDim.x) {\n";
  s += "      const long long i = ck_keep + r;\n";
  s += "      " + accumulate(spec, spec.map_expr);
  s += "    }\n";
  s += finish_compensated(spec, "    ");
  s += "    ck_shared[threadIdx.x] = acc;\n    __syncthreads();\n";
  s += block_tree;
  s += "    if (threadIdx.x == 0) {\n"
       "      const ck_acc_t a = ck_shared[0];\n"
       "      const long long ck_count = ck_n_red;\n"
       "      (void)ck_count;\n"
       "      ck_out[ck_o] = (ck_out_t)(" +
       spec.post_expr +
       ");\n"
       "    }\n"
       "    __syncthreads();  // ck_shared is reused by the next output\n"
       "  }\n}\n";
  return s;
}

std::string outer_reduction_source(const ReductionSpec& spec) {
  std::string s = common_head(spec);
  s += "// 32 outputs per block (x), 8 threads per output (y) splitting the reduced\n"
       "// positions; neighbouring x threads read neighbouring elements.\n";
  s += "extern \"C\" __global__ void " + spec.name + "(" + param_prefix(spec) +
       "ck_out_t* ck_out, long long ck_n_out, long long ck_n_red) {\n";
  s += "  __shared__ ck_acc_t ck_shared[8][32];\n";
  s += "  for (long long ck_first = (long long)blockIdx.x * 32; ck_first < ck_n_out;\n"
       "       ck_first += (long long)gridDim.x * 32) {\n";
  s += "    const long long ck_o = ck_first + threadIdx.x;\n";
  s += "    ck_acc_t acc = " + spec.neutral + ";\n";
  s += declare_compensated(spec, "    ");
  s += "    if (ck_o < ck_n_out) {\n";
  s += "      const long long ck_keep = ck_o * ck_n_red;\n";
  s += "      for (long long r = threadIdx.y; r < ck_n_red; r += blockDim.y) {\n";
  s += "        const long long i = ck_keep + r;\n";
  s += "        " + accumulate(spec, spec.map_expr);
  s += "      }\n    }\n";
  s += finish_compensated(spec, "    ");
  s += "    ck_shared[threadIdx.y][threadIdx.x] = acc;\n    __syncthreads();\n";
  s += "    if (threadIdx.y == 0 && ck_o < ck_n_out) {\n"
       "      ck_acc_t a = ck_shared[0][threadIdx.x];\n"
       "      for (unsigned int ck_y = 1; ck_y < blockDim.y; ++ck_y) a = ck_reduce(a, "
       "ck_shared[ck_y][threadIdx.x]);\n"
       "      const long long ck_count = ck_n_red;\n"
       "      (void)ck_count;\n"
       "      ck_out[ck_o] = (ck_out_t)(" +
       spec.post_expr +
       ");\n"
       "    }\n"
       "    __syncthreads();\n"
       "  }\n}\n";
  return s;
}

}  // namespace cudakit::detail
