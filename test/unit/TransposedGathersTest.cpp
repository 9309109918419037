// The gathers of a tile read transposed become dense loads and a transposition in registers
// (src/lowering/TransposedGathers.cpp): what is rewritten, what is left alone, and that every
// store writes the same values as before.
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <utility>
#include <vector>

#include "ir/IROperator.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "ir/ReferenceEvaluator.h"
#include "lowering/TransposedGathers.h"

namespace dsl {
namespace {

using namespace ir;

Expr var(const std::string &name) {
    return Variable::make(Int(32), name);
}

/// A tile of `rows` stores: out[ramp(r * lanes, 1, lanes)] = in[ramp(base(r), stride, lanes)] * 2.
Stmt tile(int lanes, int rows, const Expr &stride, const std::function<Expr(int)> &base,
          const Expr &predicate = Expr(), const std::string &out = "out") {
    std::vector<Stmt> stores;
    for (int r = 0; r < rows; r++) {
        Expr p = predicate.defined() ? predicate : const_true(lanes);
        Expr gather = Load::make(Float(32, lanes), "in", Ramp::make(base(r), stride, lanes), p);
        stores.push_back(Store::make(out, gather * Broadcast::make(Expr(2.0f), lanes),
                                     Ramp::make(Expr(r * lanes), 1, lanes), const_true(lanes)));
    }
    return Block::make(stores);
}

struct Counts {
    int dense = 0, strided = 0, shuffles = 0;
};

Counts count(const Stmt &s) {
    class Count : public IRVisitor {
      public:
        Counts c;

      protected:
        using IRVisitor::visit;
        void visit(const Load *op) override {
            IRVisitor::visit(op);
            if (const auto *ramp = op->index.as<Ramp>())
                (is_const_one(ramp->stride) ? c.dense : c.strided)++;
        }
        void visit(const Shuffle *op) override {
            IRVisitor::visit(op);
            c.shuffles++;
        }
    } counter;
    counter.include(s);
    return counter.c;
}

/// The values the stores of `s` write, in order, each inside the lets around it.
std::vector<Expr> stored_values(const Stmt &s) {
    std::vector<Expr> values;
    std::vector<std::pair<std::string, Expr>> lets;
    std::function<void(const Stmt &)> walk = [&](const Stmt &t) {
        if (const auto *let = t.as<LetStmt>()) {
            lets.emplace_back(let->name, let->value);
            walk(let->body);
            lets.pop_back();
        } else if (const auto *block = t.as<Block>()) {
            walk(block->first);
            walk(block->rest);
        } else if (const auto *store = t.as<Store>()) {
            Expr v = store->value;
            for (auto it = lets.rbegin(); it != lets.rend(); ++it)
                v = Let::make(it->first, it->second, v);
            values.push_back(v);
        }
    };
    walk(s);
    return values;
}

/// Whether `before` and `after` store the same values, with `in` holding distinct numbers and
/// b = 5, s = 37.
void expect_same_values(const Stmt &before, const Stmt &after) {
    ReferenceEvaluator eval;
    EvalBuffer in{Float(32), {}};
    for (int i = 0; i < 4096; i++) {
        Scalar v;
        v.f = i * 0.5;
        in.data.push_back(v);
    }
    eval.buffers["in"] = in;
    eval.variable_handler = [](const Variable *v) {
        return Value::of_int(Int(32), v->name == "b" ? 5 : 37);
    };
    std::vector<Expr> a = stored_values(before), b = stored_values(after);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); i++) {
        Value x = eval.eval(a[i]), y = eval.eval(b[i]);
        EXPECT_TRUE(x.same_values(y))
            << "store " << i << ": " << x.to_string() << " became " << y.to_string();
    }
}

TEST(TransposedGathers, ATileOfGathersBecomesDenseLoadsAndShuffles) {
    Expr b = var("b"), s = var("s");
    Stmt before = tile(16, 16, s, [&](int r) { return b + r; });
    Stmt after = lowering::transpose_gathers(before);
    Counts c = count(after);
    EXPECT_EQ(c.dense, 16);
    EXPECT_EQ(c.strided, 0);
    EXPECT_EQ(c.shuffles, 64);  // log2(16) stages of 16
    expect_same_values(before, after);
    // The first dense load is the block's first row; the first store reads row 0.
    EXPECT_NE(to_string(after).find("let in.transposed0.row0 = in[ramp(b, 1, 16)]"),
              std::string::npos)
        << after;
}

TEST(TransposedGathers, AnyOrderRepeatsAndOtherShapes) {
    Expr b = var("b"), s = var("s");
    // The rows in another order, one gather twice, a base offset by a constant: offsets 2 to 9
    // but 6, so no block.
    const int order[8] = {3, 0, 7, 7, 1, 5, 2, 6};
    Stmt shuffled = tile(8, 8, s, [&](int r) { return (b + order[r]) + 2; });
    EXPECT_EQ(count(lowering::transpose_gathers(shuffled)).strided, 8);
    // With offset 6 in another store after them, a block.
    Stmt complete = Block::make(shuffled, tile(8, 1, s, [&](int) { return b + 6; }));
    Stmt after = lowering::transpose_gathers(complete);
    Counts c = count(after);
    EXPECT_EQ(c.dense, 8);
    EXPECT_EQ(c.strided, 0);
    EXPECT_EQ(c.shuffles, 24);
    expect_same_values(complete, after);
    // Two blocks in one run (a tile of 16 rows of 8 lanes); and two overlapping reads (a
    // stencil's rows y and y + 3), where the block from the lowest offset is taken and the
    // three rows past it stay gathers.
    Stmt two = tile(8, 16, s, [&](int r) { return b + r; });
    after = lowering::transpose_gathers(two);
    c = count(after);
    EXPECT_EQ(c.dense, 16);
    EXPECT_EQ(c.strided, 0);
    EXPECT_EQ(c.shuffles, 48);
    expect_same_values(two, after);
    Stmt overlapping = Block::make(tile(8, 8, s, [&](int r) { return b + r; }),
                                   tile(8, 8, s, [&](int r) { return b + r + 3; }));
    after = lowering::transpose_gathers(overlapping);
    c = count(after);
    EXPECT_EQ(c.dense, 8);
    EXPECT_EQ(c.strided, 3);
    expect_same_values(overlapping, after);
    // Four lanes at a constant stride.
    Stmt four = tile(4, 4, Expr(64), [&](int r) { return b * 3 + r; });
    after = lowering::transpose_gathers(four);
    EXPECT_EQ(count(after).strided, 0);
    expect_same_values(four, after);
}

// A serial loop storing a row per iteration: unrolled when its copies hold a block; with a
// count min(e, n), behind a test that e >= n, the loop kept for the other case.
TEST(TransposedGathers, RowLoopsUnrolledWhereTheyHoldABlock) {
    Expr b = var("b"), s = var("s"), i = var("i"), e = var("e");
    auto row_loop = [&](const Expr &extent) {
        Expr gather = Load::make(Float(32, 8), "in", Ramp::make(b + i, s, 8), const_true(8));
        Stmt store = Store::make("out", gather, Ramp::make(i * 8, 1, 8), const_true(8));
        return For::make("i", 0, extent, ForType::Serial, DeviceAPI::None, store);
    };
    Stmt after = lowering::transpose_gathers(row_loop(8));
    Counts c = count(after);
    EXPECT_EQ(c.dense, 8);
    EXPECT_EQ(c.strided, 0);
    EXPECT_EQ(to_string(after).find("for ("), std::string::npos) << after;
    after = lowering::transpose_gathers(row_loop(min(e, 8)));
    const auto *test = after.as<IfThenElse>();
    ASSERT_NE(test, nullptr) << after;
    EXPECT_EQ(to_string(test->condition), "(e >= 8)");
    EXPECT_TRUE(test->else_case.as<For>()) << after;
    // 16 rows of 8 lanes are two blocks; a count of 4 or one not known holds none.
    EXPECT_EQ(count(lowering::transpose_gathers(row_loop(min(e, 16)))).shuffles, 48);
    for (Expr extent : {Expr(4), e})
        EXPECT_EQ(count(lowering::transpose_gathers(row_loop(extent))).shuffles, 0) << extent;
}

TEST(TransposedGathers, LeavesOtherLoadsAlone) {
    Expr b = var("b"), s = var("s");
    auto unchanged = [](const Stmt &before) {
        Stmt after = lowering::transpose_gathers(before);
        EXPECT_EQ(count(after).dense, count(before).dense) << before << " became " << after;
        EXPECT_EQ(count(after).shuffles, 0) << before << " became " << after;
    };
    // Not a whole block: 15 of 16 rows.
    unchanged(tile(16, 15, s, [&](int r) { return b + r; }));
    // Bases that are not consecutive.
    unchanged(tile(4, 4, s, [&](int r) { return b + 2 * r; }));
    // Predicated lanes.
    unchanged(tile(
        4, 4, s, [&](int r) { return b + r; }, Ramp::make(b, 1, 4) < Broadcast::make(s, 4)));
    // A small constant stride (code generation loads it densely already).
    unchanged(tile(4, 4, Expr(2), [&](int r) { return b + r; }));
    // Not a power of two.
    unchanged(tile(6, 6, s, [&](int r) { return b + r; }));
    // The run stores to the buffer it gathers from.
    unchanged(tile(
        4, 4, s, [&](int r) { return b + r; }, Expr(), "in"));
    // The base uses a let inside the stored value.
    std::vector<Stmt> stores;
    for (int r = 0; r < 4; r++) {
        Expr gather = Load::make(Float(32, 4), "in", Ramp::make(var("t") + r, s, 4), const_true(4));
        stores.push_back(Store::make("out", Let::make("t", b, gather),
                                     Ramp::make(Expr(r * 4), 1, 4), const_true(4)));
    }
    unchanged(Block::make(stores));
}

}  // namespace
}  // namespace dsl
