// The NPU's encoding: every field survives encode then decode, fields too wide and reserved bits
// are refused with the field named, and flags towards a neighbour an engine lacks are refused.
#include <random>

#include "NpuTestUtil.h"

using namespace npu_test;

namespace {

dsl_npu_op decoded(const dsl_npu_op &op) {
    dsl_npu_insn insn;
    char error[256] = "";
    EXPECT_EQ(dsl_npu_encode(&op, &insn, error, sizeof error), DSL_NPU_OK) << error;
    dsl_npu_op back;
    EXPECT_EQ(dsl_npu_decode(&insn, &back, error, sizeof error), DSL_NPU_OK) << error;
    return back;
}

std::string encode_error(const dsl_npu_op &op) {
    dsl_npu_insn insn;
    char error[256] = "";
    EXPECT_EQ(dsl_npu_encode(&op, &insn, error, sizeof error), DSL_NPU_ERROR_ENCODING);
    return error;
}

}  // namespace

TEST(NpuIsa, RandomInstructionsRoundTrip) {
    std::mt19937_64 rng(11);
    auto field = [&](int bits) { return static_cast<uint32_t>(rng() & ((1ull << bits) - 1)); };
    for (int i = 0; i < 2000; i++) {
        dsl_npu_op op{};
        op.opcode = static_cast<uint8_t>(rng() % 5);
        switch (op.opcode) {
            case DSL_NPU_LOAD:
            case DSL_NPU_STORE: {
                dsl_npu_memory_op &m = op.mem;
                m.buffer = static_cast<uint8_t>(op.opcode == DSL_NPU_STORE ? int(DSL_NPU_ACC)
                                                                           : int(rng() % 3));
                m.format = op.opcode == DSL_NPU_STORE ? static_cast<uint8_t>(rng() % 3) : 0;
                m.sram = field(16);
                m.dram = rng();
                m.y_size = field(16);
                m.x_size = field(16);
                m.y_stride = field(32);
                m.x_stride = field(32);
                if (op.opcode == DSL_NPU_LOAD) {
                    m.pad_top = static_cast<uint8_t>(field(8));
                    m.pad_bottom = static_cast<uint8_t>(field(8));
                    m.pad_left = static_cast<uint8_t>(field(8));
                    m.pad_right = static_cast<uint8_t>(field(8));
                    m.pad_value = m.buffer == DSL_NPU_ACC ? static_cast<int32_t>(field(32))
                                                          : static_cast<int32_t>(field(8)) - 128;
                }
                break;
            }
            case DSL_NPU_GEMM:
                op.gemm = {static_cast<uint8_t>(field(1)),
                           field(16),
                           field(16),
                           field(16),
                           field(16),
                           field(16),
                           field(16),
                           field(16),
                           field(16),
                           field(16),
                           field(16),
                           field(16)};
                break;
            case DSL_NPU_ALU:
                op.alu.fn = static_cast<uint8_t>(rng() % 8);
                op.alu.use_imm = static_cast<uint8_t>(field(1));
                op.alu.imm = op.alu.fn == DSL_NPU_SHR ? static_cast<int32_t>(rng() % 63) - 31
                                                      : static_cast<int32_t>(field(32));
                op.alu.dst = field(16);
                op.alu.src = field(16);
                op.alu.ext0 = field(16);
                op.alu.ext1 = field(16);
                op.alu.dst_f0 = field(16);
                op.alu.dst_f1 = field(16);
                op.alu.src_f0 = field(16);
                op.alu.src_f1 = field(16);
                break;
            default:
                break;
        }
        // Flags the instruction's engine has.
        const int engine = dsl_npu_engine_of(&op);
        const int allowed = engine == DSL_NPU_LOAD_ENGINE    ? DSL_NPU_POP_NEXT | DSL_NPU_PUSH_NEXT
                            : engine == DSL_NPU_STORE_ENGINE ? DSL_NPU_POP_PREV | DSL_NPU_PUSH_PREV
                                                             : 15;
        op.deps = static_cast<uint8_t>(rng() & allowed);
        dsl_npu_op back = decoded(op);
        // Compare the members the opcode uses (the others decode as zero).
        EXPECT_EQ(back.opcode, op.opcode);
        EXPECT_EQ(back.deps, op.deps);
        if (op.opcode == DSL_NPU_LOAD || op.opcode == DSL_NPU_STORE) {
            EXPECT_EQ(std::memcmp(&back.mem, &op.mem, sizeof op.mem), 0) << i;
        } else if (op.opcode == DSL_NPU_GEMM) {
            EXPECT_EQ(std::memcmp(&back.gemm, &op.gemm, sizeof op.gemm), 0) << i;
        } else if (op.opcode == DSL_NPU_ALU) {
            EXPECT_EQ(std::memcmp(&back.alu, &op.alu, sizeof op.alu), 0) << i;
        }
    }
}

TEST(NpuIsa, FieldsTooWideAreNamed) {
    EXPECT_NE(encode_error(load(DSL_NPU_INP, 70000, 0, 1, 1, 0, 16)).find("sram = 70000"),
              std::string::npos);
    EXPECT_NE(encode_error(gemm(0, 0, 0, 1 << 16, 1, 0, 0, 0, 0, 0, 0)).find("ext0"),
              std::string::npos);
    EXPECT_NE(encode_error(alu_row(DSL_NPU_ADD, 0, 1, 0, 1 << 17)).find("src_f1"),
              std::string::npos);
    EXPECT_NE(encode_error(alu_imm(DSL_NPU_SHR, 0, 1, 32)).find("outside [-31, 31]"),
              std::string::npos);
    dsl_npu_op pad = load(DSL_NPU_INP, 0, 0, 1, 1, 0, 16);
    pad.mem.pad_value = 200;
    EXPECT_NE(encode_error(pad).find("pad value 200 is not an int8"), std::string::npos);
    dsl_npu_op wrong = store(DSL_NPU_I8, 0, 0, 1, 1, 0, 16);
    wrong.mem.buffer = DSL_NPU_INP;
    EXPECT_NE(encode_error(wrong).find("STORE reads ACC only"), std::string::npos);
}

TEST(NpuIsa, FlagsTowardsAMissingNeighbourAreRefused) {
    EXPECT_NE(encode_error(load(DSL_NPU_INP, 0, 0, 1, 1, 0, 16, DSL_NPU_POP_PREV))
                  .find("no previous engine"),
              std::string::npos);
    EXPECT_NE(encode_error(store(DSL_NPU_I32, 0, 0, 1, 1, 0, 64, DSL_NPU_PUSH_NEXT))
                  .find("no next engine"),
              std::string::npos);
    // A LOAD into ACC runs on the compute engine, which has both neighbours.
    dsl_npu_op bias = load(DSL_NPU_ACC, 0, 0, 1, 1, 0, 64, DSL_NPU_POP_PREV | DSL_NPU_PUSH_NEXT);
    EXPECT_EQ(decoded(bias).deps, bias.deps);
    EXPECT_EQ(dsl_npu_engine_of(&bias), DSL_NPU_COMPUTE_ENGINE);
}

TEST(NpuIsa, ReservedBitsAndUnknownOpcodesAreRefused) {
    dsl_npu_insn insn;
    char error[256] = "";
    dsl_npu_op op = finish();
    ASSERT_EQ(dsl_npu_encode(&op, &insn, error, sizeof error), DSL_NPU_OK);
    insn.word[2] |= 1;
    EXPECT_EQ(dsl_npu_decode(&insn, &op, error, sizeof error), DSL_NPU_ERROR_ENCODING);
    EXPECT_NE(std::string(error).find("FINISH: reserved bits set in word 2"), std::string::npos);
    insn = dsl_npu_insn{{7, 0, 0, 0}};
    EXPECT_EQ(dsl_npu_decode(&insn, &op, error, sizeof error), DSL_NPU_ERROR_ENCODING);
    EXPECT_NE(std::string(error).find("unknown opcode 7"), std::string::npos);
}

TEST(NpuIsa, DisassemblyShowsFieldsAndFlags) {
    char text[256];
    dsl_npu_op op = gemm(4, 8, 12, 2, 3, 16, 0, 3, 1, 0, 1, DSL_NPU_POP_PREV | DSL_NPU_PUSH_NEXT);
    dsl_npu_disassemble(&op, text, sizeof text);
    EXPECT_EQ(std::string(text),
              "GEMM acc=4+(16,0) inp=8+(3,1) wgt=12+(0,1) ext=(2,3) [pop_prev push_next]");
    op = alu_imm(DSL_NPU_SHR, 3, 5, -2);
    dsl_npu_disassemble(&op, text, sizeof text);
    EXPECT_EQ(std::string(text), "ALU SHR dst=3+(0,1) imm=-2 ext=(1,5)");
}
