# Tutorial section 9: the 3x3 mean filter on an RGB image.
import cudakit.autoinit
import cudakit.driver as drv
import numpy as np
from cudakit.compiler import SourceModule

mod = SourceModule("""
#define CHANNELS 3
__global__ void convolution_3x3(const unsigned char* input, unsigned char* output, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;

    if (x >= 1 && x < width - 1 && y >= 1 && y < height - 1) {
        for (int c = 0; c < CHANNELS; ++c) {
            int sum = 0;
            for (int ky = -1; ky <= 1; ++ky) {
                for (int kx = -1; kx <= 1; ++kx) {
                    int idx = ((y + ky) * width + (x + kx)) * CHANNELS + c;
                    sum += input[idx];
                }
            }
            int out_idx = (y * width + x) * CHANNELS + c;
            output[out_idx] = (unsigned char)(sum / 9);
        }
    } else if (x < width && y < height) {
        // 处理边界直接拷贝
        for (int c = 0; c < CHANNELS; ++c) {
            int idx = (y * width + x) * CHANNELS + c;
            output[idx] = input[idx];
        }
    }
}
""")

# (added) an image and the launch.
height, width = 45, 67
image = np.random.randint(0, 256, size=(height, width, 3), dtype=np.uint8)
filtered = np.zeros_like(image)
convolution = mod.get_function("convolution_3x3")
convolution(drv.In(image), drv.Out(filtered), np.int32(width), np.int32(height),
            block=(16, 16, 1), grid=((width + 15) // 16, (height + 15) // 16))


def mean_filter_reference(img):
    out = img.copy()
    acc = np.zeros((img.shape[0] - 2, img.shape[1] - 2, 3), dtype=np.int32)
    for ky in (-1, 0, 1):
        for kx in (-1, 0, 1):
            acc += img[1 + ky:img.shape[0] - 1 + ky, 1 + kx:img.shape[1] - 1 + kx].astype(np.int32)
    out[1:-1, 1:-1] = (acc // 9).astype(np.uint8)
    return out


print("pixels differing:", int(np.count_nonzero(filtered != mean_filter_reference(image))))
