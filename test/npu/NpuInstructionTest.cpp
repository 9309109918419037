// Each NPU instruction against a plain C++ loop: padding with a non-zero zero point, strided
// transfers, saturating stores, the largest products, and TFLite's rounding arithmetic
// (checked against exact formulas of its own, not the simulator's).
#include <climits>
#include <cstdint>
#include <random>

#include "NpuTestUtil.h"

using namespace npu_test;

TEST(NpuInstruction, LoadPadsWithTheZeroPointAndFollowsStrides) {
    Device d;
    // A 5 x 7 grid of INP elements in DRAM, element (y, x) at 200 * y + 24 * x (gaps between).
    const uint64_t src = d.alloc(5 * 200);
    std::vector<int8_t> bytes(5 * 200);
    for (size_t i = 0; i < bytes.size(); i++)
        bytes[i] = static_cast<int8_t>(i * 7 + 3);
    d.write(src, bytes);
    // Rows 1..3, columns 2..5 of it, padded by (1, 2, 3, 1) with -5.
    dsl_npu_op op = load(DSL_NPU_INP, 10, src + 200 + 2 * 24, 3, 4, 200, 24);
    op.mem.pad_top = 1;
    op.mem.pad_bottom = 2;
    op.mem.pad_left = 3;
    op.mem.pad_right = 1;
    op.mem.pad_value = -5;
    Program p;
    p << op << finish();
    ASSERT_EQ(d.run(p), DSL_NPU_OK) << d.error;
    const int8_t *inp = dsl_npu_inp(d.npu.get());
    const int rows = 1 + 3 + 2, cols = 3 + 4 + 1;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            for (int l = 0; l < 16; l++) {
                const bool inside = r >= 1 && r < 4 && c >= 3 && c < 7;
                const int8_t want =
                    inside ? bytes[size_t(200 * (r - 1 + 1) + 24 * (c - 3 + 2) + l)] : int8_t(-5);
                ASSERT_EQ(inp[(10 + r * cols + c) * 16 + l], want) << r << " " << c << " " << l;
            }
    // Elements before and after the block are untouched.
    EXPECT_EQ(inp[9 * 16], 0);
    EXPECT_EQ(inp[(10 + rows * cols) * 16], 0);
}

TEST(NpuInstruction, LoadsIntoWeightsAndAccumulators) {
    Device d;
    const uint64_t w = d.alloc(2 * 256), acc = d.alloc(3 * 64);
    std::vector<int8_t> blocks(2 * 256);
    for (size_t i = 0; i < blocks.size(); i++)
        blocks[i] = static_cast<int8_t>(255 - i);
    std::vector<int32_t> rows(3 * 16);
    for (size_t i = 0; i < rows.size(); i++)
        rows[i] = int32_t(i) * -100000;
    d.write(w, blocks);
    d.write(acc, rows);
    dsl_npu_op bias = load(DSL_NPU_ACC, 5, acc, 1, 3, 0, 64);
    bias.mem.pad_right = 1;
    bias.mem.pad_value = INT32_MIN;
    Program p;
    p << load(DSL_NPU_WGT, 1, w, 2, 1, 256, 256) << bias << finish();
    ASSERT_EQ(d.run(p), DSL_NPU_OK) << d.error;
    EXPECT_EQ(std::memcmp(dsl_npu_wgt(d.npu.get()) + 256, blocks.data(), blocks.size()), 0);
    const int32_t *a = dsl_npu_acc(d.npu.get());
    EXPECT_EQ(std::memcmp(a + 5 * 16, rows.data(), rows.size() * 4), 0);
    for (int l = 0; l < 16; l++)
        EXPECT_EQ(a[8 * 16 + l], INT32_MIN);
}

TEST(NpuInstruction, StoresSaturateToInt8AndUint8) {
    Device d;
    const uint64_t in = d.alloc(64), out8 = d.alloc(64), outu8 = d.alloc(64), out32 = d.alloc(64);
    std::vector<int32_t> row = {INT32_MIN, -129, -128, -1,   0,     1,  127, 128,
                                254,       255,  256,  1000, -1000, 77, -77, INT32_MAX};
    d.write(in, row);
    Program p;
    p << load(DSL_NPU_ACC, 0, in, 1, 1, 0, 64, DSL_NPU_PUSH_NEXT)
      << store(DSL_NPU_I8, 0, out8, 1, 1, 0, 16, DSL_NPU_POP_PREV)
      << store(DSL_NPU_U8, 0, outu8, 1, 1, 0, 16) << store(DSL_NPU_I32, 0, out32, 1, 1, 0, 64)
      << finish();
    ASSERT_EQ(d.run(p), DSL_NPU_OK) << d.error;
    std::vector<int8_t> i8 = d.read<int8_t>(out8, 16);
    std::vector<uint8_t> u8 = d.read<uint8_t>(outu8, 16);
    for (int l = 0; l < 16; l++) {
        EXPECT_EQ(i8[l], std::max(-128, std::min(127, row[l]))) << l;
        EXPECT_EQ(u8[l], std::max(0, std::min(255, row[l]))) << l;
    }
    EXPECT_EQ(d.read<int32_t>(out32, 16), row);
}

TEST(NpuInstruction, GemmAccumulatesTheLargestProductsAndResets) {
    Device d;
    // Two INP rows, two WGT blocks; every product at the extremes: -128 * -128 = 16384 (16 of
    // them in one step), and -128 * 127.
    const uint64_t x = d.alloc(32), w = d.alloc(512), out = d.alloc(4 * 64);
    std::vector<int8_t> rows(32), blocks(512);
    for (int k = 0; k < 16; k++) {
        rows[k] = -128;
        rows[16 + k] = static_cast<int8_t>(k % 2 ? 127 : -128);
    }
    std::mt19937 rng(3);
    for (int i = 0; i < 256; i++)
        blocks[i] = -128;
    for (int i = 256; i < 512; i++)
        blocks[i] = static_cast<int8_t>(int(rng() % 256) - 128);
    d.write(x, rows);
    d.write(w, blocks);
    Program p;
    p << load(DSL_NPU_INP, 0, x, 1, 2, 0, 16)
      << load(DSL_NPU_WGT, 0, w, 1, 2, 0, 256, DSL_NPU_PUSH_NEXT)
      // acc[0] = x0 . w0 + x1 . w1; acc[1] = x0 . w1 (two loops: i0 over acc rows, i1 over k)
      << reset(0, 4, DSL_NPU_POP_PREV) << gemm(0, 0, 0, 1, 2, 0, 0, 0, 1, 0, 1)
      << gemm(1, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0)
      // acc[2] accumulates three times over, then acc[3] is reset after a GEMM into it.
      << gemm(2, 0, 0, 3, 1, 0, 0, 0, 0, 0, 0) << gemm(3, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0)
      << reset(3, 1, DSL_NPU_PUSH_NEXT) << store(DSL_NPU_I32, 0, out, 1, 4, 0, 64, DSL_NPU_POP_PREV)
      << finish();
    ASSERT_EQ(d.run(p), DSL_NPU_OK) << d.error;
    std::vector<int32_t> got = d.read<int32_t>(out, 64);
    auto dot = [&](int row, int block, int j) {
        int32_t s = 0;
        for (int k = 0; k < 16; k++)
            s += int32_t(rows[row * 16 + k]) * int32_t(blocks[block * 256 + j * 16 + k]);
        return s;
    };
    for (int j = 0; j < 16; j++) {
        EXPECT_EQ(got[j], dot(0, 0, j) + dot(1, 1, j)) << j;
        EXPECT_EQ(got[16 + j], dot(0, 1, j)) << j;
        EXPECT_EQ(got[32 + j], 3 * dot(0, 0, j)) << j;
        EXPECT_EQ(got[48 + j], 0) << j;
    }
    EXPECT_EQ(dot(0, 0, 0), 16 * 16384);
}

namespace {

// Exact rounding of a / 2^s, half away from zero, in 64-bit arithmetic.
int32_t exact_shift(int32_t a, int s) {
    if (s < 0) return static_cast<int32_t>(static_cast<uint32_t>(a) << -s);
    const int64_t d = int64_t(1) << s, m = a < 0 ? -int64_t(a) : a;
    const int64_t q = (m + d / 2) / d;
    return static_cast<int32_t>(a < 0 ? -q : q);
}

// Exact round-half-up of a * b / 2^31, saturated: floor((2ab + 2^31) / 2^32).
int32_t exact_high_mul(int32_t a, int32_t b) {
    if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
    const int64_t twice = 2 * int64_t(a) * int64_t(b);
    return static_cast<int32_t>((twice + (int64_t(1) << 31)) >> 32);
}

}  // namespace

TEST(NpuInstruction, RoundingArithmeticMatchesExactFormulas) {
    std::mt19937 rng(7);
    const int32_t edges[] = {INT32_MIN, INT32_MIN + 1, -65537,   -3, -2, -1, 0, 1, 2,
                             3,         65535,         INT32_MAX};
    for (int32_t a : edges) {
        for (int s = -31; s <= 31; s++)
            ASSERT_EQ(dsl_npu_rounding_shift(a, s), exact_shift(a, s)) << a << " " << s;
        for (int32_t b : edges)
            ASSERT_EQ(dsl_npu_rounding_doubling_high_mul(a, b), exact_high_mul(a, b))
                << a << " " << b;
    }
    for (int i = 0; i < 100000; i++) {
        const int32_t a = static_cast<int32_t>(rng()), b = static_cast<int32_t>(rng());
        const int s = static_cast<int>(rng() % 63) - 31;
        ASSERT_EQ(dsl_npu_rounding_shift(a, s), exact_shift(a, s)) << a << " " << s;
        ASSERT_EQ(dsl_npu_rounding_doubling_high_mul(a, b), exact_high_mul(a, b)) << a << " " << b;
    }
    // Halves: -5 / 2 rounds to -3, 5 / 2 to 3; a shift beyond 31 is clamped.
    EXPECT_EQ(dsl_npu_rounding_shift(-5, 1), -3);
    EXPECT_EQ(dsl_npu_rounding_shift(5, 1), 3);
    EXPECT_EQ(dsl_npu_rounding_shift(-1, 40), 0);
}

TEST(NpuInstruction, AluFunctionsWithImmediatesAndPerChannelRows) {
    Device d;
    std::mt19937 rng(5);
    // Rows 0..3: values; row 4: a per-channel operand; rows 5..8: element-wise operands.
    std::vector<int32_t> acc(9 * 16);
    for (size_t i = 0; i < acc.size(); i++)
        acc[i] = static_cast<int32_t>(rng());
    for (int l = 0; l < 16; l++) {
        acc[l] = l % 2 ? INT32_MIN : INT32_MAX;  // wrap-around and saturation edges
        acc[4 * 16 + l] = l - 8;                 // shifts of both signs
    }
    const uint64_t in = d.alloc(acc.size() * 4);
    d.write(in, acc);
    const uint64_t out = d.alloc(4 * 64 * 8);
    auto reference = [](int fn, int32_t a, int32_t b) -> int32_t {
        switch (fn) {
            case DSL_NPU_ADD:
                return int32_t(uint32_t(a) + uint32_t(b));
            case DSL_NPU_SUB:
                return int32_t(uint32_t(a) - uint32_t(b));
            case DSL_NPU_MUL:
                return int32_t(uint32_t(a) * uint32_t(b));
            case DSL_NPU_MIN:
                return std::min(a, b);
            case DSL_NPU_MAX:
                return std::max(a, b);
            case DSL_NPU_SHR:
                return exact_shift(a, std::max(-31, std::min(31, b)));
            case DSL_NPU_MULH:
                return exact_high_mul(a, b);
            default:
                return b;
        }
    };
    for (int fn = 0; fn < 8; fn++) {
        for (int form = 0; form < 3; form++) {  // immediate, per-channel, element-wise
            const int32_t imm = fn == DSL_NPU_SHR ? -3 : 123456789;
            Program p;
            p << load(DSL_NPU_ACC, 0, in, 1, 9, 0, 64);
            if (form == 0) p << alu_imm(fn, 0, 4, imm, DSL_NPU_PUSH_NEXT);
            if (form == 1) p << alu_row(fn, 0, 4, 4, 0, DSL_NPU_PUSH_NEXT);
            if (form == 2) p << alu_row(fn, 0, 4, 5, 1, DSL_NPU_PUSH_NEXT);
            p << store(DSL_NPU_I32, 0, out, 1, 4, 0, 64, DSL_NPU_POP_PREV) << finish();
            ASSERT_EQ(d.run(p), DSL_NPU_OK) << d.error;
            std::vector<int32_t> got = d.read<int32_t>(out, 64);
            for (int r = 0; r < 4; r++)
                for (int l = 0; l < 16; l++) {
                    const int32_t b = form == 0   ? imm
                                      : form == 1 ? acc[4 * 16 + l]
                                                  : acc[(5 + r) * 16 + l];
                    ASSERT_EQ(got[r * 16 + l], reference(fn, acc[r * 16 + l], b))
                        << "fn " << fn << " form " << form << " row " << r << " lane " << l;
                }
        }
    }
}

TEST(NpuInstruction, RequantisesAsTFLiteDoes) {
    // int32 accumulators -> int8 as TFLite's MultiplyByQuantizedMultiplier (exponent e > 0 a
    // left shift before the high multiply, e < 0 a rounding right shift after it), then the
    // output zero point, the clamp and a saturating store; the NPU runs it as SHR by minus the
    // left shift, MULH, SHR by the right shift (both per channel), ADD, MAX, MIN.
    Device d;
    std::mt19937 rng(9);
    std::vector<int32_t> acc(16 * 16), mult(16), left(16), right(16), exponent(16);
    for (int32_t &v : acc)
        v = static_cast<int32_t>(rng() % 2000001) - 1000000;
    for (int l = 0; l < 16; l++) {
        mult[l] = (1 << 30) + static_cast<int32_t>(rng() % (1u << 30));  // in [0.5, 1) as Q31
        exponent[l] = static_cast<int32_t>(rng() % 14) - 11;             // some left shifts
        left[l] = -std::max(exponent[l], 0);
        right[l] = std::max(-exponent[l], 0);
    }
    std::vector<int32_t> all = acc;
    for (const std::vector<int32_t> *row : {&mult, &left, &right})
        all.insert(all.end(), row->begin(), row->end());
    const uint64_t in = d.alloc(all.size() * 4), out = d.alloc(16 * 16);
    d.write(in, all);
    const int32_t zero_point = -7;
    Program p;
    p << load(DSL_NPU_ACC, 0, in, 1, 19, 0, 64) << alu_row(DSL_NPU_SHR, 0, 16, 17, 0)
      << alu_row(DSL_NPU_MULH, 0, 16, 16, 0) << alu_row(DSL_NPU_SHR, 0, 16, 18, 0)
      << alu_imm(DSL_NPU_ADD, 0, 16, zero_point) << alu_imm(DSL_NPU_MAX, 0, 16, -128)
      << alu_imm(DSL_NPU_MIN, 0, 16, 127, DSL_NPU_PUSH_NEXT)
      << store(DSL_NPU_I8, 0, out, 16, 1, 16, 16, DSL_NPU_POP_PREV) << finish();
    ASSERT_EQ(d.run(p), DSL_NPU_OK) << d.error;
    std::vector<int8_t> got = d.read<int8_t>(out, 256);
    for (int r = 0; r < 16; r++)
        for (int l = 0; l < 16; l++) {
            const int e = exponent[l];
            const int32_t shifted =
                static_cast<int32_t>(static_cast<uint32_t>(acc[r * 16 + l]) << (e > 0 ? e : 0));
            int32_t v = exact_shift(exact_high_mul(shifted, mult[l]), e > 0 ? 0 : -e);
            v = std::max(-128, std::min(127, v + zero_point));
            ASSERT_EQ(got[r * 16 + l], v) << r << " " << l;
        }
}
