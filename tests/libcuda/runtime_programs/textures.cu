// CUDA arrays, a texture object and a surface object through the runtime API: cudaMallocArray,
// cudaMemcpy2DToArray, cudaCreateTextureObject (linear filtering, normalised coordinates, clamp),
// tex2D, cudaCreateSurfaceObject, surf2Dwrite, cudaMemcpy2DFromArray. Results are checked against
// values computed here on the host.
#include <cmath>
#include <cstdio>

#include "check.cuh"

constexpr int W = 8, H = 6;

__global__ void sample(cudaTextureObject_t t, cudaSurfaceObject_t s, float *out) {
    int x = threadIdx.x, y = threadIdx.y;
    // The texel centre: linear filtering there returns the texel itself.
    float centre = tex2D<float>(t, (x + 0.5f) / W, (y + 0.5f) / H);
    // Half-way between texel x and x + 1 (clamped at the right edge): their mean.
    float between = tex2D<float>(t, (x + 1.0f) / W, (y + 0.5f) / H);
    out[y * W + x] = between;
    surf2Dwrite(centre * 2.0f, s, x * (int)sizeof(float), y);
}

int main() {
    float host[H][W];
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) host[y][x] = (float)(x * x + 3 * y);

    cudaChannelFormatDesc channel = cudaCreateChannelDesc<float>();
    cudaArray_t input, output;
    CHECK(cudaMallocArray(&input, &channel, W, H));
    CHECK(cudaMallocArray(&output, &channel, W, H, cudaArraySurfaceLoadStore));
    CHECK(cudaMemcpy2DToArray(input, 0, 0, host, W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));

    cudaResourceDesc resource = {};
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = input;
    cudaTextureDesc texture = {};
    texture.addressMode[0] = texture.addressMode[1] = cudaAddressModeClamp;
    texture.filterMode = cudaFilterModeLinear;
    texture.readMode = cudaReadModeElementType;
    texture.normalizedCoords = 1;
    cudaTextureObject_t tex;
    CHECK(cudaCreateTextureObject(&tex, &resource, &texture, nullptr));
    resource.res.array.array = output;
    cudaSurfaceObject_t surf;
    CHECK(cudaCreateSurfaceObject(&surf, &resource));

    float *out;
    CHECK(cudaMalloc(&out, sizeof(host)));
    sample<<<1, dim3(W, H)>>>(tex, surf, out);
    CHECK(cudaGetLastError());
    float between[H][W], doubled[H][W];
    CHECK(cudaMemcpy(between, out, sizeof(between), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy2DFromArray(doubled, W * sizeof(float), output, 0, 0, W * sizeof(float), H,
                                cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            float mean = 0.5f * (host[y][x] + host[y][x + 1 < W ? x + 1 : W - 1]);
            if (std::fabs(between[y][x] - mean) > 1e-4f * (1 + std::fabs(mean)) || doubled[y][x] != 2 * host[y][x]) {
                if (bad++ < 5)
                    std::fprintf(stderr, "texel (%d, %d): between %g (want %g), doubled %g (want %g)\n", x, y,
                                 between[y][x], mean, doubled[y][x], 2 * host[y][x]);
            }
        }
    CHECK(cudaDestroyTextureObject(tex));
    CHECK(cudaDestroySurfaceObject(surf));
    CHECK(cudaFreeArray(input));
    CHECK(cudaFreeArray(output));
    CHECK(cudaFree(out));
    if (bad) {
        std::fprintf(stderr, "textures: %d of %d texels wrong\n", bad, W * H);
        return 1;
    }
    std::printf("textures: %d filtered texels and %d surface writes correct\n", W * H, W * H);
    return 0;
}
