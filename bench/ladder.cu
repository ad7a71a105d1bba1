// bench/ladder.cu: validates and times every kernel of the "How fast can it go"
// ladders (and the teaching kernels they start from) on one GPU.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o ladder bench/ladder.cu
//   ./ladder            validate every version on every shape, then time them
//   ./ladder --small    validate on small shapes only (for compute-sanitizer)
//   ./ladder --ncu      one launch of each K.2 / K.3 teaching kernel at 4096^2
//
// Validation comes first: outputs are filled with 0xFF bytes before each launch
// and compared exactly, against a CPU reference on shapes that fit the host
// comfortably and against a closed-form GPU checker (input element i is a hash
// of i) on the shape past 2^31 elements. Timing: cudaEvent around each launch,
// warm-up, median of 20, against cudaMemcpy device-to-device of the same bytes
// (read + write) measured in the same run. Records go to ladder.jsonl.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "../kernels/k2_transpose.cu"
#include "../kernels/k3_grid_mapping.cu"
#include "../kernels/k5_layout_interop.cu"
#include "../kernels/k6_spiral.cu"
#include "../kernels/k7_diagonal.cu"

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(2);                                                                               \
        }                                                                                          \
    } while (0)
#define LAUNCHED() CK(cudaGetLastError())

static int g_sms = 132;
static int g_failures = 0;
static FILE* g_jsonl = nullptr;
static std::string g_card, g_driver, g_nvcc, g_date;

struct Shape {
    size_t rows, cols;
};

static dim3 grid2(size_t xs, size_t ys) {   // x unclamped, y clamped to 65535
    return dim3((unsigned)xs, (unsigned)std::min<size_t>(ys, 65535));
}
static size_t cdiv(size_t a, size_t b) { return (a + b - 1) / b; }
static unsigned grid1d(size_t n, size_t per_block) {
    return (unsigned)std::max<size_t>(1, std::min<size_t>(cdiv(n, per_block), (size_t)g_sms * 8));
}

// ---------------------------------------------------------------- inputs & checkers
__host__ __device__ inline float hval(uint64_t i, uint64_t seed) {
    uint64_t z = i + seed * 0x9E3779B97F4A7C15ull + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (float)(z & 0xFFFFFF) - 8388608.0f;   // exact in float, sign varies
}
__global__ void fill_hash(float* p, size_t n, uint64_t seed) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = hval(i, seed);
}
__device__ inline bool same(float a, float b) { return __float_as_uint(a) == __float_as_uint(b); }
__global__ void verify_transpose(const float* out, size_t rows, size_t cols, unsigned long long* bad) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < rows * cols; i += (size_t)gridDim.x * blockDim.x) {
        size_t r = i / cols, c = i % cols;
        if (!same(out[c * rows + r], hval(i, 1))) atomicAdd(bad, 1ull);
    }
}
__global__ void verify_copy(const float* out, size_t n, unsigned long long* bad) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        if (!same(out[i], hval(i, 1))) atomicAdd(bad, 1ull);
}
__global__ void verify_add(const float* out, size_t n, unsigned long long* bad) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        if (!same(out[i], hval(i, 1) + hval(i, 2))) atomicAdd(bad, 1ull);
}
__global__ void verify_spiral(const float* out, size_t rows, size_t cols, unsigned long long* bad) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < rows * cols; i += (size_t)gridDim.x * blockDim.x) {
        long long r = (long long)(i / cols), c = (long long)(i % cols);
        if (!same(out[spiral_rank(r, c, (long long)rows, (long long)cols)], hval(i, 1))) atomicAdd(bad, 1ull);
    }
}

// CPU references
static void ref_spiral(const std::vector<float>& in, std::vector<float>& out, size_t R, size_t C) {
    // Walks the rings like a person would: independent of the closed form.
    size_t k = 0;
    long long top = 0, left = 0, bottom = (long long)R - 1, right = (long long)C - 1;
    while (top <= bottom && left <= right) {
        for (long long c = left; c <= right; ++c) out[k++] = in[top * C + c];
        for (long long r = top + 1; r <= bottom; ++r) out[k++] = in[r * C + right];
        if (top < bottom)
            for (long long c = right - 1; c >= left; --c) out[k++] = in[bottom * C + c];
        if (left < right)
            for (long long r = bottom - 1; r > top; --r) out[k++] = in[r * C + left];
        ++top, ++left, --bottom, --right;
    }
}
static const uint64_t MOD61 = (1ull << 61) - 1;
static void ref_lattice(std::vector<uint64_t>& g, size_t R, size_t C) {
    for (size_t r = 0; r < R; ++r)
        for (size_t c = 0; c < C; ++c) {
            if (r == 0 || c == 0) { g[r * C + c] = 1; continue; }
            uint64_t s = g[(r - 1) * C + c] + g[r * C + c - 1];
            g[r * C + c] = s >= MOD61 ? s - MOD61 : s;
        }
}

static void report(const char* chapter, const char* kernel, Shape s, size_t bad, size_t total, const char* how) {
    bool ok = bad == 0;
    if (!ok) ++g_failures;
    printf("  %-4s %-28s %9zux%-9zu %-5s %s%s\n", chapter, kernel, s.rows, s.cols, ok ? "ok" : "FAIL", how,
           ok ? "" : (" (" + std::to_string(bad) + " of " + std::to_string(total) + " wrong)").c_str());
    fflush(stdout);
}

// ---------------------------------------------------------------- the versions
typedef std::function<void(float*, const float*, size_t, size_t)> Unary;     // (out, in, rows, cols)
typedef std::function<bool(size_t, size_t)> Fits;                             // can this launch this shape?
struct UVersion {
    const char* name;
    Unary launch;
    Fits fits;
};
static bool any_shape(size_t, size_t) { return true; }

static std::vector<UVersion> k2_versions() {
    return {
        {"transpose_tile32", [](float* o, const float* i, size_t r, size_t c) {
             transpose_tile32<<<grid2(cdiv(c, 32), cdiv(r, 32)), dim3(32, 32)>>>(o, i, r, c); }, any_shape},
        {"transpose_tile32_padded", [](float* o, const float* i, size_t r, size_t c) {
             transpose_tile32_padded<<<grid2(cdiv(c, 32), cdiv(r, 32)), dim3(32, 32)>>>(o, i, r, c); }, any_shape},
        {"transpose_v1_32x8", [](float* o, const float* i, size_t r, size_t c) {
             transpose_v1_32x8<<<grid2(cdiv(c, 32), cdiv(r, 32)), dim3(32, 8)>>>(o, i, r, c); }, any_shape},
        {"transpose_v2_64x64_float2", [](float* o, const float* i, size_t r, size_t c) {
             transpose_v2_64x64_float2<<<grid2(cdiv(c, 64), cdiv(r, 64)), dim3(32, 8)>>>(o, i, r, c); }, any_shape},
        {"transpose_v3_64x64_float4", [](float* o, const float* i, size_t r, size_t c) {
             transpose_v3_64x64_float4<<<grid2(cdiv(c, 64), cdiv(r, 64)), dim3(16, 16)>>>(o, i, r, c); }, any_shape},
    };
}
static std::vector<UVersion> k3_versions() {
    return {
        {"copy_x_to_col", [](float* o, const float* i, size_t r, size_t c) {
             copy_x_to_col<<<dim3((unsigned)cdiv(c, 32), (unsigned)cdiv(r, 8)), dim3(32, 8)>>>(o, i, r, c); },
         [](size_t r, size_t) { return cdiv(r, 8) <= 65535; }},
        {"copy_x_to_row", [](float* o, const float* i, size_t r, size_t c) {
             copy_x_to_row<<<dim3((unsigned)cdiv(r, 32), (unsigned)cdiv(c, 8)), dim3(32, 8)>>>(o, i, r, c); },
         [](size_t, size_t c) { return cdiv(c, 8) <= 65535; }},
        {"copy_v1_grid_stride", [](float* o, const float* i, size_t r, size_t c) {
             copy_v1_grid_stride<<<grid1d(r * c, 256), 256>>>(o, i, r, c); }, any_shape},
        {"copy_v2_float4", [](float* o, const float* i, size_t r, size_t c) {
             copy_v2_float4<<<grid1d(r * c, 1024), 256>>>(o, i, r, c); }, any_shape},
        {"copy_v3_float4_x4", [](float* o, const float* i, size_t r, size_t c) {
             copy_v3_float4_x4<<<grid1d(r * c, 4096), 256>>>(o, i, r, c); }, any_shape},
    };
}
typedef std::function<void(float*, const float*, const float*, size_t, size_t)> Binary;
struct BVersion {
    const char* name;
    Binary launch;
    Fits fits;
};
static std::vector<BVersion> k5_versions() {
    return {
        {"add_row_major", [](float* o, const float* a, const float* b, size_t r, size_t c) {
             add_row_major<<<dim3((unsigned)cdiv(c, 32), (unsigned)cdiv(r, 8)), dim3(32, 8)>>>(o, a, b, r, c); },
         [](size_t r, size_t) { return cdiv(r, 8) <= 65535; }},
        {"add_v1_grid_stride", [](float* o, const float* a, const float* b, size_t r, size_t c) {
             add_v1_grid_stride<<<grid1d(r * c, 256), 256>>>(o, a, b, r, c); }, any_shape},
        {"add_v2_float4", [](float* o, const float* a, const float* b, size_t r, size_t c) {
             add_v2_float4<<<grid1d(r * c, 1024), 256>>>(o, a, b, r, c); }, any_shape},
        {"add_v3_float4_x4", [](float* o, const float* a, const float* b, size_t r, size_t c) {
             add_v3_float4_x4<<<grid1d(r * c, 4096), 256>>>(o, a, b, r, c); }, any_shape},
    };
}
static std::vector<UVersion> k6_versions() {
    auto teach_fits = [](size_t r, size_t c) { return cdiv(r, 8) <= 65535 && r < (1u << 31) && c < (1u << 31); };
    return {
        {"spiral_scatter", [](float* o, const float* i, size_t r, size_t c) {
             spiral_scatter<<<dim3((unsigned)cdiv(c, 32), (unsigned)cdiv(r, 8)), dim3(32, 8)>>>(o, i, (int)r, (int)c); },
         teach_fits},
        {"spiral_gather", [](float* o, const float* i, size_t r, size_t c) {
             spiral_gather<<<dim3((unsigned)cdiv(c, 32), (unsigned)cdiv(r, 8)), dim3(32, 8)>>>(o, i, (int)r, (int)c); },
         teach_fits},
        {"spiral_v1_tiled", [](float* o, const float* i, size_t r, size_t c) {
             spiral_v1_tiled<<<grid2(cdiv(c, 32), cdiv(r, 32)), dim3(32, 8)>>>(o, i, r, c); }, any_shape},
        {"spiral_v2_tile_classes", [](float* o, const float* i, size_t r, size_t c) {
             spiral_v2_tile_classes<<<grid2(cdiv(c, 32), cdiv(r, 32)), dim3(32, 8)>>>(o, i, r, c); }, any_shape},
        {"spiral_v3_tile64", [](float* o, const float* i, size_t r, size_t c) {
             spiral_v3_tile64<<<grid2(cdiv(c, 64), cdiv(r, 64)), dim3(32, 8)>>>(o, i, r, c); }, any_shape},
    };
}

// K.7: each version fills a rows x cols u64 table. `work` persists across calls (zeroed once).
struct LVersion {
    const char* name;
    std::function<void(unsigned long long*, size_t, size_t, unsigned long long*)> launch;
    std::function<size_t(size_t, size_t)> work_words;
};
static void lattice_per_diagonal(unsigned long long* g, size_t R, size_t C) {
    for (long long d = 0; d < (long long)(R + C - 1); ++d) {
        long long lo = d - ((long long)C - 1) > 0 ? d - ((long long)C - 1) : 0;
        long long hi = d < (long long)R - 1 ? d : (long long)R - 1;
        lattice_wavefront<<<(unsigned)cdiv(hi - lo + 1, 256), 256>>>(g, (long long)R, (long long)C, d);
    }
}
static void lattice_tiles(unsigned long long* g, size_t R, size_t C) {
    const long long t = 32, down = cdiv(R, t), across = cdiv(C, t);
    for (long long td = 0; td < down + across - 1; ++td) {
        long long lo = td - (across - 1) > 0 ? td - (across - 1) : 0;
        long long hi = td < down - 1 ? td : down - 1;
        lattice_tiled<<<(unsigned)(hi - lo + 1), dim3(t, t)>>>(g, (long long)R, (long long)C, td);
    }
}
static std::vector<LVersion> k7_versions() {
    auto none = [](size_t, size_t) { return (size_t)0; };
    return {
        {"lattice_wavefront(per diag)", [](unsigned long long* g, size_t r, size_t c, unsigned long long*) {
             lattice_per_diagonal(g, r, c); }, none},
        {"lattice_tiled(per tile diag)", [](unsigned long long* g, size_t r, size_t c, unsigned long long*) {
             lattice_tiles(g, r, c); }, none},
        {"lattice_v1_systolic", [](unsigned long long* g, size_t r, size_t c, unsigned long long* w) {
             size_t bands = cdiv(r, 32);
             lattice_v1_systolic<<<(unsigned)std::min<size_t>(bands, 1024), 32>>>(g, (long long)r, (long long)c, w); },
         [](size_t r, size_t c) { return 2 + cdiv(r, 32) * c; }},
        {"lattice_v2_systolic_2rows", [](unsigned long long* g, size_t r, size_t c, unsigned long long* w) {
             size_t bands = cdiv(r, 64);
             lattice_v2_systolic_2rows<<<(unsigned)std::min<size_t>(bands, 1024), 32>>>(g, (long long)r, (long long)c, w); },
         [](size_t r, size_t c) { return 2 + cdiv(r, 64) * c; }},
        {"lattice_v3_binomial", [](unsigned long long* g, size_t r, size_t c, unsigned long long* w) {
             lattice_v3_binomial<<<(unsigned)std::min<size_t>(r, (size_t)g_sms * 8), 256>>>(g, (long long)r, (long long)c, w); },
         [](size_t r, size_t c) { return 3 + 2 * (r + c - 1); }},
        {"lattice_v4_systolic_staged", [](unsigned long long* g, size_t r, size_t c, unsigned long long* w) {
             size_t bands = cdiv(r, 32);
             lattice_v4_systolic_staged<<<(unsigned)std::min<size_t>(bands, 1024), 32>>>(g, (long long)r, (long long)c, w); },
         [](size_t r, size_t c) { return 2 + cdiv(r, 32) * c; }},
    };
}

// ---------------------------------------------------------------- validation
static std::vector<float> host_input(size_t n, uint64_t seed) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = hval(i, seed);
    return v;
}
static size_t count_bad(const std::vector<float>& got, const std::vector<float>& want) {
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); ++i) bad += memcmp(&got[i], &want[i], 4) != 0;
    return bad;
}

static void validate_unary(const char* ch, const std::vector<UVersion>& vs, const std::vector<Shape>& shapes,
                           void (*ref)(const std::vector<float>&, std::vector<float>&, size_t, size_t)) {
    for (Shape s : shapes) {
        size_t n = s.rows * s.cols;
        std::vector<float> in = host_input(n, 1), want(n), got(n);
        ref(in, want, s.rows, s.cols);
        float *din, *dout;
        CK(cudaMalloc(&din, n * 4));
        CK(cudaMalloc(&dout, n * 4));
        CK(cudaMemcpy(din, in.data(), n * 4, cudaMemcpyHostToDevice));
        for (auto& v : vs) {
            if (!v.fits(s.rows, s.cols)) { printf("  %-4s %-28s %9zux%-9zu skip  (its grid cannot cover this shape)\n", ch, v.name, s.rows, s.cols); continue; }
            CK(cudaMemset(dout, 0xFF, n * 4));
            v.launch(dout, din, s.rows, s.cols);
            LAUNCHED();
            CK(cudaDeviceSynchronize());
            CK(cudaMemcpy(got.data(), dout, n * 4, cudaMemcpyDeviceToHost));
            report(ch, v.name, s, count_bad(got, want), n, "vs CPU");
        }
        CK(cudaFree(din));
        CK(cudaFree(dout));
    }
}
static void validate_unary_big(const char* ch, const std::vector<UVersion>& vs, Shape s,
                               void (*verify)(const float*, size_t, size_t, unsigned long long*)) {
    size_t n = s.rows * s.cols;
    float *din, *dout;
    unsigned long long* bad;
    CK(cudaMalloc(&din, n * 4));
    CK(cudaMalloc(&dout, n * 4));
    CK(cudaMalloc(&bad, 8));
    fill_hash<<<g_sms * 8, 256>>>(din, n, 1);
    LAUNCHED();
    for (auto& v : vs) {
        if (!v.fits(s.rows, s.cols)) { printf("  %-4s %-28s %9zux%-9zu skip  (its grid cannot cover this shape)\n", ch, v.name, s.rows, s.cols); continue; }
        CK(cudaMemset(dout, 0xFF, n * 4));
        CK(cudaMemset(bad, 0, 8));
        v.launch(dout, din, s.rows, s.cols);
        LAUNCHED();
        CK(cudaDeviceSynchronize());
        verify<<<g_sms * 8, 256>>>(dout, s.rows, s.cols, bad);
        LAUNCHED();
        unsigned long long h = 0;
        CK(cudaMemcpy(&h, bad, 8, cudaMemcpyDeviceToHost));
        report(ch, v.name, s, h, n, "vs GPU closed-form checker");
    }
    CK(cudaFree(din));
    CK(cudaFree(dout));
    CK(cudaFree(bad));
}
static void v_transpose(const float* o, size_t r, size_t c, unsigned long long* b) { verify_transpose<<<g_sms * 8, 256>>>(o, r, c, b); }
static void v_copy(const float* o, size_t r, size_t c, unsigned long long* b) { verify_copy<<<g_sms * 8, 256>>>(o, r * c, b); }
static void v_spiral(const float* o, size_t r, size_t c, unsigned long long* b) { verify_spiral<<<g_sms * 8, 256>>>(o, r, c, b); }

static void ref_transpose(const std::vector<float>& in, std::vector<float>& out, size_t R, size_t C) {
    for (size_t r = 0; r < R; ++r)
        for (size_t c = 0; c < C; ++c) out[c * R + r] = in[r * C + c];
}
static void ref_copy(const std::vector<float>& in, std::vector<float>& out, size_t, size_t) { out = in; }

static void validate_add(const std::vector<BVersion>& vs, const std::vector<Shape>& shapes, bool big) {
    for (Shape s : shapes) {
        size_t n = s.rows * s.cols;
        float *da, *db, *dout;
        CK(cudaMalloc(&da, n * 4));
        CK(cudaMalloc(&db, n * 4));
        CK(cudaMalloc(&dout, n * 4));
        std::vector<float> want, got;
        unsigned long long* bad = nullptr;
        if (big) {
            CK(cudaMalloc(&bad, 8));
            fill_hash<<<g_sms * 8, 256>>>(da, n, 1);
            fill_hash<<<g_sms * 8, 256>>>(db, n, 2);
            LAUNCHED();
        } else {
            std::vector<float> a = host_input(n, 1), b = host_input(n, 2);
            want.resize(n);
            got.resize(n);
            for (size_t i = 0; i < n; ++i) want[i] = a[i] + b[i];
            CK(cudaMemcpy(da, a.data(), n * 4, cudaMemcpyHostToDevice));
            CK(cudaMemcpy(db, b.data(), n * 4, cudaMemcpyHostToDevice));
        }
        for (auto& v : vs) {
            if (!v.fits(s.rows, s.cols)) { printf("  %-4s %-28s %9zux%-9zu skip  (its grid cannot cover this shape)\n", "K.5", v.name, s.rows, s.cols); continue; }
            CK(cudaMemset(dout, 0xFF, n * 4));
            v.launch(dout, da, db, s.rows, s.cols);
            LAUNCHED();
            CK(cudaDeviceSynchronize());
            if (big) {
                CK(cudaMemset(bad, 0, 8));
                verify_add<<<g_sms * 8, 256>>>(dout, n, bad);
                LAUNCHED();
                unsigned long long h = 0;
                CK(cudaMemcpy(&h, bad, 8, cudaMemcpyDeviceToHost));
                report("K.5", v.name, s, h, n, "vs GPU closed-form checker");
            } else {
                CK(cudaMemcpy(got.data(), dout, n * 4, cudaMemcpyDeviceToHost));
                report("K.5", v.name, s, count_bad(got, want), n, "vs CPU");
            }
        }
        CK(cudaFree(da));
        CK(cudaFree(db));
        CK(cudaFree(dout));
        if (bad) CK(cudaFree(bad));
    }
}

static void validate_lattice(const std::vector<LVersion>& vs, const std::vector<Shape>& shapes) {
    for (Shape s : shapes) {
        size_t n = s.rows * s.cols;
        std::vector<uint64_t> want(n), got(n);
        ref_lattice(want, s.rows, s.cols);
        unsigned long long* dg;
        CK(cudaMalloc(&dg, n * 8));
        for (auto& v : vs) {
            if ((v.name[8] == 'w' || v.name[8] == 't') && s.rows * s.cols > 20000000) continue;   // many launches: skip the tall ones
            size_t words = v.work_words(s.rows, s.cols);
            unsigned long long* work = nullptr;
            if (words) {
                CK(cudaMalloc(&work, words * 8));
                CK(cudaMemset(work, 0, words * 8));   // zeroed once; each launch must leave it reusable
            }
            size_t bad = 0;
            for (int rep = 0; rep < 2; ++rep) {        // the second launch proves the work buffer cleaned itself
                CK(cudaMemset(dg, 0xFF, n * 8));
                v.launch(dg, s.rows, s.cols, work);
                LAUNCHED();
                CK(cudaDeviceSynchronize());
                CK(cudaMemcpy(got.data(), dg, n * 8, cudaMemcpyDeviceToHost));
                for (size_t i = 0; i < n; ++i) bad += got[i] != want[i];
            }
            report("K.7", v.name, s, bad, 2 * n, "vs CPU, launched twice");
            if (work) CK(cudaFree(work));
        }
        CK(cudaFree(dg));
    }
}

// ---------------------------------------------------------------- timing
static float median_ms(const std::function<void()>& f, int reps = 20, int warm = 3) {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int i = 0; i < warm; ++i) f();
    LAUNCHED();
    CK(cudaDeviceSynchronize());
    std::vector<float> t(reps);
    for (int i = 0; i < reps; ++i) {
        CK(cudaEventRecord(a));
        f();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        LAUNCHED();
        CK(cudaEventElapsedTime(&t[i], a, b));
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    std::sort(t.begin(), t.end());
    return t[reps / 2];
}
// copy yardstick: bytes (read + write) -> median ms of cudaMemcpy D2D moving bytes / 2
static float copy_ms(size_t bytes) {
    void *s, *d;
    CK(cudaMalloc(&s, bytes / 2));
    CK(cudaMalloc(&d, bytes / 2));
    CK(cudaMemset(s, 1, bytes / 2));
    float ms = median_ms([&] { CK(cudaMemcpyAsync(d, s, bytes / 2, cudaMemcpyDeviceToDevice)); });
    CK(cudaFree(s));
    CK(cudaFree(d));
    return ms;
}
static void record(const char* ch, Shape s, const char* kernel, double bytes, float ms, float cms, const char* yard) {
    double gbs = bytes / (ms * 1e6);
    printf("  %-4s %5zux%-5zu %-30s %9.4f ms %8.1f GB/s %7.1f%% of copy\n", ch, s.rows, s.cols, kernel, ms, gbs, 100.0 * cms / ms);
    fprintf(g_jsonl,
            "{\"card\":\"%s\",\"driver\":\"%s\",\"nvcc\":\"%s\",\"date\":\"%s\",\"chapter\":\"%s\",\"rows\":%zu,\"cols\":%zu,"
            "\"kernel\":\"%s\",\"bytes\":%.0f,\"median_ms\":%.5f,\"copy_ms\":%.5f,\"ratio\":%.4f,\"yardstick\":\"%s\"}\n",
            g_card.c_str(), g_driver.c_str(), g_nvcc.c_str(), g_date.c_str(), ch, s.rows, s.cols, kernel, bytes, ms, cms,
            cms / ms, yard);
    fflush(g_jsonl);
    fflush(stdout);
}

static void time_unary(const char* ch, const std::vector<UVersion>& vs, Shape s) {
    size_t n = s.rows * s.cols;
    double bytes = 2.0 * n * 4;
    float *din, *dout;
    CK(cudaMalloc(&din, n * 4));
    CK(cudaMalloc(&dout, n * 4));
    fill_hash<<<g_sms * 8, 256>>>(din, n, 1);
    LAUNCHED();
    float c0 = copy_ms((size_t)bytes);
    std::vector<float> ms;
    for (auto& v : vs) ms.push_back(median_ms([&] { v.launch(dout, din, s.rows, s.cols); }));
    float c1 = copy_ms((size_t)bytes);
    float cms = 0.5f * (c0 + c1);
    printf("  %-4s %5zux%-5zu %-30s %9.4f ms %8.1f GB/s  (before %.4f, after %.4f)\n", ch, s.rows, s.cols, "cudaMemcpy D2D (yardstick)", cms, bytes / (cms * 1e6), c0, c1);
    record(ch, s, "cudaMemcpy_D2D", bytes, cms, cms, "cudaMemcpy D2D of the same bytes");
    for (size_t i = 0; i < vs.size(); ++i) record(ch, s, vs[i].name, bytes, ms[i], cms, "cudaMemcpy D2D of the same bytes");
    CK(cudaFree(din));
    CK(cudaFree(dout));
}

int main(int argc, char** argv) {
    bool small = argc > 1 && !strcmp(argv[1], "--small");
    bool ncu = argc > 1 && !strcmp(argv[1], "--ncu");
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    g_sms = p.multiProcessorCount;
    int drv = 0;
    CK(cudaDriverGetVersion(&drv));
    g_card = p.name;
    char buf[256] = {0};
    if (FILE* f = popen("nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null", "r")) {
        if (fgets(buf, sizeof buf, f)) buf[strcspn(buf, "\n")] = 0;
        pclose(f);
    }
    g_driver = std::string(buf) + " (CUDA " + std::to_string(drv / 1000) + "." + std::to_string(drv % 1000 / 10) + ")";
    g_nvcc = std::to_string(__CUDACC_VER_MAJOR__) + "." + std::to_string(__CUDACC_VER_MINOR__) + "." + std::to_string(__CUDACC_VER_BUILD__);
    time_t now = time(nullptr);
    strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    g_date = buf;
    printf("%s, %d SMs, L2 %d MB, driver %s, nvcc %s, %s\n", p.name, g_sms, p.l2CacheSize >> 20, g_driver.c_str(), g_nvcc.c_str(), g_date.c_str());

    if (argc > 1 && !strcmp(argv[1], "--ncu-lattice")) {   // one launch of each single-launch wavefront, 4096^2
        size_t R = 4096, C = 4096;
        unsigned long long *g, *w;
        CK(cudaMalloc(&g, R * C * 8));
        CK(cudaMalloc(&w, (2 + cdiv(R, 32) * C) * 8));
        for (auto& v : k7_versions()) {
            if (strncmp(v.name, "lattice_v", 9)) continue;
            CK(cudaMemset(w, 0, (2 + cdiv(R, 32) * C) * 8));
            v.launch(g, R, C, w);
            LAUNCHED();
            CK(cudaDeviceSynchronize());
        }
        printf("ncu-lattice mode done\n");
        return 0;
    }
    if (ncu) {   // one launch each, 4096^2, for Nsight Compute's counters
        Shape s{4096, 4096};
        size_t n = s.rows * s.cols;
        float *din, *dout;
        CK(cudaMalloc(&din, n * 4));
        CK(cudaMalloc(&dout, n * 4));
        fill_hash<<<g_sms * 8, 256>>>(din, n, 1);
        for (auto& v : k2_versions()) if (!strncmp(v.name, "transpose_tile32", 16)) { v.launch(dout, din, s.rows, s.cols); LAUNCHED(); }
        for (auto& v : k3_versions()) if (!strncmp(v.name, "copy_x_to", 9)) { v.launch(dout, din, s.rows, s.cols); LAUNCHED(); }
        CK(cudaDeviceSynchronize());
        printf("ncu mode done\n");
        return 0;
    }

    std::vector<Shape> shapes = {{1, 1}, {1, 7}, {7, 1}, {2, 2}, {3, 5}, {33, 65}, {64, 64}, {65, 63}, {100, 37}, {37, 100}, {1000, 1001}};
    if (!small) {
        shapes.push_back({4097, 4095});
        shapes.push_back({4200007, 5});   // ceil(rows / 64) > 65535: past gridDim.y for every 2D kernel here
        shapes.push_back({3, 1000003});
    }
    Shape big{46341, 46343};              // 2 147 580 963 elements > 2^31
    printf("\n== validation (outputs poisoned with 0xFF, exact comparison) ==\n");
    validate_unary("K.2", k2_versions(), shapes, ref_transpose);
    validate_unary("K.3", k3_versions(), shapes, ref_copy);
    validate_add(k5_versions(), shapes, false);
    validate_unary("K.6", k6_versions(), shapes, ref_spiral);
    std::vector<Shape> lshapes = {{1, 1}, {1, 7}, {7, 1}, {2, 2}, {33, 65}, {64, 64}, {65, 63}, {100, 37}, {37, 100}, {200, 1000}};
    if (!small) {
        lshapes.push_back({1000, 1001});
        lshapes.push_back({4096, 4096});
        lshapes.push_back({4097, 4095});
        lshapes.push_back({70001, 3});
        lshapes.push_back({3, 70001});
    }
    validate_lattice(k7_versions(), lshapes);
    if (!small) {
        printf("  -- past 2^31 elements: %zu x %zu = %zu --\n", big.rows, big.cols, big.rows * big.cols);
        validate_unary_big("K.2", k2_versions(), big, v_transpose);
        validate_unary_big("K.3", k3_versions(), big, v_copy);
        validate_add(k5_versions(), {big}, true);
        validate_unary_big("K.6", k6_versions(), big, v_spiral);
    }
    printf("validation: %s (%d failures)\n", g_failures ? "FAILED" : "all exact", g_failures);
    if (small) return g_failures ? 1 : 0;

    g_jsonl = fopen("ladder.jsonl", "w");
    printf("\n== timing (median of 20 after 3 warm-ups; %% of copy = copy time / kernel time, same bytes) ==\n");
    time_unary("K.2", k2_versions(), {8192, 8192});
    time_unary("K.3", k3_versions(), {8192, 8192});
    {
        Shape s{8192, 8192};
        size_t n = s.rows * s.cols;
        double bytes = 3.0 * n * 4;
        float *a, *b, *o;
        CK(cudaMalloc(&a, n * 4));
        CK(cudaMalloc(&b, n * 4));
        CK(cudaMalloc(&o, n * 4));
        fill_hash<<<g_sms * 8, 256>>>(a, n, 1);
        fill_hash<<<g_sms * 8, 256>>>(b, n, 2);
        LAUNCHED();
        float c0 = copy_ms((size_t)bytes);
        std::vector<float> ms;
        auto vs = k5_versions();
        for (auto& v : vs) ms.push_back(median_ms([&] { v.launch(o, a, b, s.rows, s.cols); }));
        float c1 = copy_ms((size_t)bytes);
        float cms = 0.5f * (c0 + c1);
        printf("  K.5  copy yardstick %.4f ms (before %.4f, after %.4f)\n", cms, c0, c1);
        record("K.5", s, "cudaMemcpy_D2D", bytes, cms, cms, "cudaMemcpy D2D of the same bytes");
        for (size_t i = 0; i < vs.size(); ++i) record("K.5", s, vs[i].name, bytes, ms[i], cms, "cudaMemcpy D2D of the same bytes");
        CK(cudaFree(a));
        CK(cudaFree(b));
        CK(cudaFree(o));
    }
    time_unary("K.6", k6_versions(), {4096, 4096});
    time_unary("K.6", k6_versions(), {8192, 8192});
    {
        Shape s{4096, 4096};
        size_t n = s.rows * s.cols;
        double bytes = 8.0 * n;   // each cell written once
        unsigned long long* g;
        CK(cudaMalloc(&g, n * 8));
        auto vs = k7_versions();
        float base = 0;
        float cms = copy_ms((size_t)(2 * bytes));
        printf("  K.7  4096x4096 u64: yardstick = the per-diagonal launches issued back to back (no host sync); copy of the table's bytes %.4f ms\n", cms);
        for (auto& v : vs) {
            size_t words = v.work_words(s.rows, s.cols);
            unsigned long long* work = nullptr;
            if (words) {
                CK(cudaMalloc(&work, words * 8));
                CK(cudaMemset(work, 0, words * 8));
            }
            float ms = median_ms([&] { v.launch(g, s.rows, s.cols, work); });
            if (base == 0) base = ms;
            printf("  K.7  %5zux%-5zu %-30s %9.4f ms   %7.1fx faster than per-diagonal   (%.1f%% of a copy writing+reading the table once)\n",
                   s.rows, s.cols, v.name, ms, base / ms, 100.0 * cms / ms);
            fprintf(g_jsonl,
                    "{\"card\":\"%s\",\"driver\":\"%s\",\"nvcc\":\"%s\",\"date\":\"%s\",\"chapter\":\"K.7\",\"rows\":%zu,\"cols\":%zu,"
                    "\"kernel\":\"%s\",\"bytes\":%.0f,\"median_ms\":%.5f,\"copy_ms\":%.5f,\"ratio\":%.4f,\"per_diagonal_ms\":%.5f,"
                    "\"speedup_vs_per_diagonal\":%.3f,\"yardstick\":\"lattice_wavefront launched once per diagonal, back to back\"}\n",
                    g_card.c_str(), g_driver.c_str(), g_nvcc.c_str(), g_date.c_str(), s.rows, s.cols, v.name, 2 * bytes, ms, cms,
                    cms / ms, base, base / ms);
            fflush(g_jsonl);
            if (work) CK(cudaFree(work));
        }
        CK(cudaFree(g));
    }
    fclose(g_jsonl);
    printf("\nvalidation: %s (%d failures)\n", g_failures ? "FAILED" : "all exact", g_failures);
    return g_failures ? 1 : 0;
}
