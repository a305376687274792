"""cuda.random: Numba's xoroshiro128+ generator API (filled in below)."""
