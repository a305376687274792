// One step of an all-pairs n-body simulation (GPU Gems 3, ch. 31): bodies
// as float4 (x, y, z, mass), positions staged through shared memory a tile
// of blockDim.x bodies at a time; velocity and position updated in place.
__device__ float3 body_interaction(float4 bi, float4 bj, float3 acc, float softening2) {
  float3 r = make_float3(bj.x - bi.x, bj.y - bi.y, bj.z - bi.z);
  float dist2 = r.x * r.x + r.y * r.y + r.z * r.z + softening2;
  float inv_dist = rsqrtf(dist2);
  float s = bj.w * inv_dist * inv_dist * inv_dist;
  acc.x += r.x * s;
  acc.y += r.y * s;
  acc.z += r.z * s;
  return acc;
}

__global__ void nbody_step(const float4* pos, float4* new_pos, float4* vel, int n, float dt,
                           float softening2) {
  extern __shared__ float4 tile[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 me = (i < n) ? pos[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  float3 acc = make_float3(0.0f, 0.0f, 0.0f);
  for (int start = 0; start < n; start += blockDim.x) {
    int j = start + threadIdx.x;
    tile[threadIdx.x] = (j < n) ? pos[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    __syncthreads();
    int count = min((int)blockDim.x, n - start);
    for (int k = 0; k < count; ++k) acc = body_interaction(me, tile[k], acc, softening2);
    __syncthreads();
  }
  if (i < n) {
    float4 v = vel[i];
    v.x += acc.x * dt;
    v.y += acc.y * dt;
    v.z += acc.z * dt;
    vel[i] = v;
    new_pos[i] = make_float4(me.x + v.x * dt, me.y + v.y * dt, me.z + v.z * dt, me.w);
  }
}
