// Which driver queries are slow on the first call in a process (the first
// Device::properties() took ~1 ms on an H200). Not part of the build:
//   g++ -O2 attribute_cost.cpp -I$CUDA/include -lcuda
#include <cuda.h>

#include <chrono>
#include <cstdio>

int main() {
  using C = std::chrono::steady_clock;
  auto us = [](C::time_point a) {
    return std::chrono::duration<double, std::micro>(C::now() - a).count();
  };
  cuInit(0);
  CUdevice dev;
  cuDeviceGet(&dev, 0);
  CUcontext ctx;
  cuDevicePrimaryCtxRetain(&ctx, dev);
  cuCtxSetCurrent(ctx);
  char name[256];
  auto t = C::now();
  cuDeviceGetName(name, 256, dev);
  std::printf("cuDeviceGetName %.1f us\n", us(t));
  size_t total;
  t = C::now();
  cuDeviceTotalMem(&total, dev);
  std::printf("cuDeviceTotalMem %.1f us\n", us(t));
  for (int a = 1; a < CU_DEVICE_ATTRIBUTE_MAX; ++a) {
    int v = 0;
    t = C::now();
    CUresult r = cuDeviceGetAttribute(&v, static_cast<CUdevice_attribute>(a), dev);
    double u = us(t);
    if (u > 20) std::printf("attribute %d: %.1f us (rc %d, value %d)\n", a, u, r, v);
  }
  char bus[64];
  t = C::now();
  cuDeviceGetPCIBusId(bus, 64, dev);
  std::printf("cuDeviceGetPCIBusId %.1f us\n", us(t));
}
