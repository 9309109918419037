#pragma once
// Helpers for the NPU's tests: instructions built field by field, a program that encodes as it
// goes, a device with room for buffers, and hand-written tiled matmul programs.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "npu/Npu.h"

namespace npu_test {

inline dsl_npu_op load(int buffer, uint32_t sram, uint64_t dram, uint32_t y, uint32_t x,
                       uint32_t y_stride, uint32_t x_stride, int deps = 0) {
    return dsl_npu_memory(DSL_NPU_LOAD, buffer, sram, dram, y, x, y_stride, x_stride, deps);
}

inline dsl_npu_op store(int format, uint32_t sram, uint64_t dram, uint32_t y, uint32_t x,
                        uint32_t y_stride, uint32_t x_stride, int deps = 0) {
    dsl_npu_op op =
        dsl_npu_memory(DSL_NPU_STORE, DSL_NPU_ACC, sram, dram, y, x, y_stride, x_stride, deps);
    op.mem.format = static_cast<uint8_t>(format);
    return op;
}

/// GEMM over (ext0, ext1) with factors {acc, inp, wgt} x {f0, f1}.
inline dsl_npu_op gemm(uint32_t acc, uint32_t inp, uint32_t wgt, uint32_t ext0, uint32_t ext1,
                       uint32_t acc_f0, uint32_t acc_f1, uint32_t inp_f0, uint32_t inp_f1,
                       uint32_t wgt_f0, uint32_t wgt_f1, int deps = 0) {
    return dsl_npu_gemm(acc, inp, wgt, ext0, ext1, acc_f0, acc_f1, inp_f0, inp_f1, wgt_f0, wgt_f1,
                        deps);
}

/// Zeroes `rows` consecutive ACC rows from `acc`.
inline dsl_npu_op reset(uint32_t acc, uint32_t rows, int deps = 0) {
    return dsl_npu_reset(acc, rows, deps);
}

/// ALU fn on `rows` consecutive ACC rows from dst, with an immediate.
inline dsl_npu_op alu_imm(int fn, uint32_t dst, uint32_t rows, int32_t imm, int deps = 0) {
    dsl_npu_op op{};
    op.opcode = DSL_NPU_ALU;
    op.deps = static_cast<uint8_t>(deps);
    op.alu.fn = static_cast<uint8_t>(fn);
    op.alu.use_imm = 1;
    op.alu.imm = imm;
    op.alu.dst = dst;
    op.alu.ext0 = 1;
    op.alu.ext1 = rows;
    op.alu.dst_f1 = 1;
    return op;
}

/// ALU fn on `rows` consecutive ACC rows from dst, with ACC rows from src (src_f1 apart: 0 for
/// one per-channel row, 1 element-wise).
inline dsl_npu_op alu_row(int fn, uint32_t dst, uint32_t rows, uint32_t src, uint32_t src_f1,
                          int deps = 0) {
    dsl_npu_op op = alu_imm(fn, dst, rows, 0, deps);
    op.alu.use_imm = 0;
    op.alu.src = src;
    op.alu.src_f1 = src_f1;
    return op;
}

inline dsl_npu_op finish(int deps = 0) {
    dsl_npu_op op{};
    op.opcode = DSL_NPU_FINISH;
    op.deps = static_cast<uint8_t>(deps);
    return op;
}

/// A program: decoded instructions, encoded on demand.
struct Program {
    std::vector<dsl_npu_op> ops;
    Program &operator<<(const dsl_npu_op &op) {
        ops.push_back(op);
        return *this;
    }
    std::vector<dsl_npu_insn> encoded() const {
        std::vector<dsl_npu_insn> out(ops.size());
        for (size_t i = 0; i < ops.size(); i++) {
            char error[256] = "";
            EXPECT_EQ(dsl_npu_encode(&ops[i], &out[i], error, sizeof error), DSL_NPU_OK)
                << "instruction " << i << ": " << error;
        }
        return out;
    }
};

/// An NPU of the default (or a given) configuration, destroyed with the test.
struct Device {
    std::unique_ptr<dsl_npu, void (*)(dsl_npu *)> npu{nullptr, dsl_npu_destroy};
    explicit Device(const dsl_npu_config *config = nullptr) {
        char error[256] = "";
        npu.reset(dsl_npu_create(config, error, sizeof error));
        EXPECT_NE(npu.get(), nullptr) << error;
    }
    const dsl_npu_config &config() const { return *dsl_npu_get_config(npu.get()); }
    uint64_t alloc(uint64_t bytes) {
        uint64_t address = 0;
        EXPECT_EQ(dsl_npu_malloc(npu.get(), bytes, &address), DSL_NPU_OK)
            << dsl_npu_last_error(npu.get());
        return address;
    }
    uint8_t *at(uint64_t address) { return dsl_npu_dram(npu.get()) + address; }
    template <typename T>
    void write(uint64_t address, const std::vector<T> &values) {
        std::memcpy(at(address), values.data(), values.size() * sizeof(T));
    }
    template <typename T>
    std::vector<T> read(uint64_t address, size_t count) {
        std::vector<T> out(count);
        std::memcpy(out.data(), at(address), count * sizeof(T));
        return out;
    }
    /// Runs `p`; returns the error code, with the message in `error`.
    int run(const Program &p, int order = DSL_NPU_DATAFLOW, uint64_t seed = 0,
            dsl_npu_stats *stats = nullptr) {
        std::vector<dsl_npu_insn> code = p.encoded();
        dsl_npu_run_options options;
        dsl_npu_default_run_options(&options);
        options.order = order;
        options.seed = seed;
        int result = dsl_npu_run(npu.get(), code.data(), code.size(), &options, stats);
        error = dsl_npu_last_error(npu.get());
        return result;
    }
    std::string error;
};

/// A matmul C = A x B of int8 (A M x K row-major, B given as K x N row-major) into int32, with
/// M, K, N multiples of the block; the NPU's layouts: A as is (an INP element is 16 consecutive
/// k of one row), B packed into WGT blocks [n / 16][k / 16][n % 16][k % 16], C row-major.
struct Matmul {
    int M, K, N;
    std::vector<int8_t> a, b;
    uint64_t a_at = 0, b_at = 0, c_at = 0;

    Matmul(int m, int k, int n, uint32_t seed)
        : M(m), K(k), N(n), a(size_t(m) * k), b(size_t(k) * n) {
        std::mt19937 rng(seed);
        for (int8_t &v : a)
            v = static_cast<int8_t>(static_cast<int>(rng() % 256) - 128);
        for (int8_t &v : b)
            v = static_cast<int8_t>(static_cast<int>(rng() % 256) - 128);
    }
    std::vector<int32_t> reference() const {
        std::vector<int32_t> c(size_t(M) * N, 0);
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                int32_t sum = 0;
                for (int k = 0; k < K; k++)
                    sum += int32_t(a[size_t(i) * K + k]) * int32_t(b[size_t(k) * N + j]);
                c[size_t(i) * N + j] = sum;
            }
        return c;
    }
    /// Allocates and fills the device's copies of A and (packed) B, and room for C.
    void upload(Device &d, int block) {
        a_at = d.alloc(a.size());
        b_at = d.alloc(b.size());
        c_at = d.alloc(size_t(M) * N * 4);
        d.write(a_at, a);
        std::vector<int8_t> packed(b.size());
        const int kb = K / block, nb = N / block;
        for (int n0 = 0; n0 < nb; n0++)
            for (int k0 = 0; k0 < kb; k0++)
                for (int j = 0; j < block; j++)
                    for (int k = 0; k < block; k++)
                        packed[((size_t(n0) * kb + k0) * block + j) * block + k] =
                            b[size_t(k0 * block + k) * N + n0 * block + j];
        d.write(b_at, packed);
    }
    /// A program over tiles of `tile_m` rows of A, all of B on chip, with `buffers` (1 or 2)
    /// copies of the A tile and of the C tile, so that with 2 the load of the next tile and
    /// the store of the last overlap the GEMMs of this one. Tokens: load -> compute (tile in
    /// INP), compute -> load (INP copy free), compute -> store (tile in ACC), store -> compute
    /// (ACC copy free).
    Program program(int block, int tile_m, int buffers) const {
        const int kb = K / block, nb = N / block, tiles = M / tile_m;
        const uint32_t inp_tile = uint32_t(tile_m * kb), acc_tile = uint32_t(tile_m * nb);
        Program p;
        p << load(DSL_NPU_WGT, 0, b_at, 1, uint32_t(nb * kb), 0, uint32_t(block * block));
        for (int t = 0; t < tiles; t++) {
            const int slot = t % buffers;
            const bool reuse = t >= buffers;        // this copy held tile t - buffers
            const bool more = t + buffers < tiles;  // a later tile reuses it
            p << load(DSL_NPU_INP, slot * inp_tile, a_at + uint64_t(t) * tile_m * K,
                      uint32_t(tile_m), uint32_t(kb), uint32_t(K), uint32_t(block),
                      DSL_NPU_PUSH_NEXT | (reuse ? DSL_NPU_POP_NEXT : 0));
            p << reset(slot * acc_tile, acc_tile,
                       DSL_NPU_POP_PREV | (reuse ? DSL_NPU_POP_NEXT : 0));
            for (int n = 0; n < nb; n++) {
                const bool last = n == nb - 1;
                int deps = 0;
                if (last && more) deps |= DSL_NPU_PUSH_PREV;
                if (last) deps |= DSL_NPU_PUSH_NEXT;
                p << gemm(slot * acc_tile + n, slot * inp_tile, uint32_t(n * kb), uint32_t(tile_m),
                          uint32_t(kb), uint32_t(nb), 0, uint32_t(kb), 1, 0, 1, deps);
            }
            const bool final_tile = t == tiles - 1;
            p << store(DSL_NPU_I32, slot * acc_tile, c_at + uint64_t(t) * tile_m * N * 4,
                       uint32_t(tile_m), uint32_t(nb), uint32_t(N * 4), uint32_t(block * 4),
                       DSL_NPU_POP_PREV | ((more || final_tile) ? DSL_NPU_PUSH_PREV : 0));
        }
        p << finish(DSL_NPU_POP_NEXT);
        return p;
    }
};

}  // namespace npu_test
