"""`numba.cuda.kernels`: ready-made kernels (`transpose`)."""
