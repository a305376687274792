#include <string>

#include "array/linalg_ops.hpp"
#include "array/reduce_ops.hpp"
#include "cudakit/detail/expr_codegen.hpp"

namespace cudakit::detail {

std::string matmul_kernel_source(DType dtype, bool large_tiles) {
  const std::string t(c_type_name(dtype));
  const std::string acc(c_type_name(compute_dtype(dtype)));
  std::string s = codegen_prelude();
  s += "\ntypedef " + t + " ck_t;\n";
  s += "typedef " + acc + " ck_acc_t;\n";
  // Loads and stores through the prelude's conversions (16-bit floats are structs).
  s += "#define CK_LOAD(x) (ck_acc_t)(" + load_as_compute(dtype, "x") + ")\n";
  s += "#define CK_STORE(x) " + store_as(dtype, "x") + "\n";
  if (large_tiles)
    s += "#define CK_BM 64\n#define CK_BN 64\n#define CK_BK 16\n#define CK_TM 4\n#define CK_TN 4\n";
  else
    s += "#define CK_BM 16\n#define CK_BN 16\n#define CK_BK 16\n#define CK_TM 1\n#define CK_TN 1\n";
  s += R"(#define CK_THREADS ((CK_BM / CK_TM) * (CK_BN / CK_TN))

// C[z] = A[z] @ B[z]: each block computes a CK_BM x CK_BN tile of C, staging
// CK_BK-deep slices of A and B through shared memory; each thread keeps a
// CK_TM x CK_TN block of results in registers. A thread's rows and columns
// are CK_BM / CK_TM (CK_BN / CK_TN) apart, so a warp's shared-memory reads
// hit distinct banks or broadcast. Operands are read through their strides
// (transposed views need no copy); C is C-contiguous.
extern "C" __global__ void ck_matmul(const ck_t* A, const ck_t* B, ck_t* C, long long M, long long N, long long K,
                          long long a_row, long long a_col, long long a_batch,
                          long long b_row, long long b_col, long long b_batch) {
  __shared__ ck_acc_t As[CK_BK][CK_BM];
  __shared__ ck_acc_t Bs[CK_BK][CK_BN];
  const int tid = threadIdx.x;
  const int tx = tid % (CK_BN / CK_TN);
  const int ty = tid / (CK_BN / CK_TN);
  const long long row0 = (long long)blockIdx.y * CK_BM;
  const long long col0 = (long long)blockIdx.x * CK_BN;
  A += (long long)blockIdx.z * a_batch;
  B += (long long)blockIdx.z * b_batch;
  C += (long long)blockIdx.z * M * N;

  ck_acc_t acc[CK_TM][CK_TN];
  for (int i = 0; i < CK_TM; ++i)
    for (int j = 0; j < CK_TN; ++j) acc[i][j] = (ck_acc_t)0;

  for (long long k0 = 0; k0 < K; k0 += CK_BK) {
    for (int e = tid; e < CK_BM * CK_BK; e += CK_THREADS) {
      const int mm = e / CK_BK, kk = e % CK_BK;
      const long long r = row0 + mm, k = k0 + kk;
      As[kk][mm] = (r < M && k < K) ? CK_LOAD(A[r * a_row + k * a_col]) : (ck_acc_t)0;
    }
    for (int e = tid; e < CK_BK * CK_BN; e += CK_THREADS) {
      const int kk = e / CK_BN, nn = e % CK_BN;
      const long long k = k0 + kk, c = col0 + nn;
      Bs[kk][nn] = (k < K && c < N) ? CK_LOAD(B[k * b_row + c * b_col]) : (ck_acc_t)0;
    }
    __syncthreads();
    for (int kk = 0; kk < CK_BK; ++kk) {
      ck_acc_t a_reg[CK_TM], b_reg[CK_TN];
      for (int i = 0; i < CK_TM; ++i) a_reg[i] = As[kk][ty + i * (CK_BM / CK_TM)];
      for (int j = 0; j < CK_TN; ++j) b_reg[j] = Bs[kk][tx + j * (CK_BN / CK_TN)];
      for (int i = 0; i < CK_TM; ++i)
        for (int j = 0; j < CK_TN; ++j) acc[i][j] += a_reg[i] * b_reg[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < CK_TM; ++i) {
    const long long r = row0 + ty + i * (CK_BM / CK_TM);
    if (r >= M) continue;
    for (int j = 0; j < CK_TN; ++j) {
      const long long c = col0 + tx + j * (CK_BN / CK_TN);
      if (c < N) C[r * N + c] = CK_STORE(acc[i][j]);
    }
  }
}
)";
  return s;
}

void matmul_generated(const MatmulProblem& p, const Device& device, const Stream& stream) {
  const bool large = device.backend_kind() == BackendKind::cuda;
  const unsigned tile = large ? 64 : 16;
  const std::string key =
      std::string("matmul|") + (large ? "64" : "16") + "|" + std::string(to_string(p.dtype));
  const Kernel kernel =
      cached_kernel(device, key, "ck_matmul", [&] { return matmul_kernel_source(p.dtype, large); });
  ArgPack args;
  args.push_pointer(p.a.address);
  args.push_pointer(p.b.address);
  args.push_pointer(p.c);
  args.push_scalar<long long>(p.m);
  args.push_scalar<long long>(p.n);
  args.push_scalar<long long>(p.k);
  args.push_scalar<long long>(p.a.row);
  args.push_scalar<long long>(p.a.col);
  args.push_scalar<long long>(p.a.batch);
  args.push_scalar<long long>(p.b.row);
  args.push_scalar<long long>(p.b.col);
  args.push_scalar<long long>(p.b.batch);
  LaunchConfig config;
  config.grid =
      Dim3(static_cast<unsigned>((p.n + tile - 1) / tile),
           static_cast<unsigned>((p.m + tile - 1) / tile), static_cast<unsigned>(p.batch));
  config.block = Dim3(256);
  config.stream = StreamRef{stream.native()};
  args.launch(kernel, config);
}

}  // namespace cudakit::detail
