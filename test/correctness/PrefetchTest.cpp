// Stage::prefetch (src/lowering/Prefetches.cpp): a prefetch changes no result, wherever it is
// placed and whatever it fetches; the region it fetches is what the iteration `offset` steps on
// reads, also through a Func computed further out, clamped to or tested against the data.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>

#include "common/PipelineCheck.h"
#include "dsl/dsl.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "lang/Function.h"
#include "lowering/Lower.h"

namespace dsl {
namespace {

using test::count_of;
using test::matches_reference;
using test::random_buffer;

Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");

// A transpose in tiles, each tile prefetching the next one's columns of the input (the case
// hardware prefetchers miss: every row of a tile reads a new row of the input), for sizes that
// leave partial tiles, offsets back and forth, and both strategies.
TEST(Prefetch, TransposeInTilesMatchesTheReference) {
    ImageParam in(Int(32), 2, "pf_in");
    in.set(random_buffer(Int(32), {37, 29}, 1));
    for (PrefetchBoundStrategy strategy :
         {PrefetchBoundStrategy::Clamp, PrefetchBoundStrategy::GuardWithIf}) {
        for (int offset : {-1, 1, 3}) {
            Func f("pf_transpose");
            f(x, y) = in(y, x) * 3 + x;
            f.tile(x, y, xo, yo, xi, yi, 8, 4, TailStrategy::GuardWithIf)
                .vectorize(xi)
                .prefetch(in, xo, xo, offset, strategy);
            Buffer<> out(Int(32), {29, 37});
            f.realize(out);
            EXPECT_TRUE(matches_reference(f, out)) << "offset " << offset;
            std::string stmt = f.lowered_stmt();
            EXPECT_GE(count_of(stmt, "prefetch(pf_in["), 2) << stmt;
            std::string nest = f.loop_nest();
            EXPECT_EQ(
                count_of(nest,
                         "prefetch pf_in for xo + " + std::to_string(offset) + " (" +
                             (strategy == PrefetchBoundStrategy::Clamp ? "Clamp" : "GuardWithIf") +
                             ")"),
                2)
                << nest;  // the main tiles and the last, partial one
        }
    }
}

// A Func computed at root, a Tuple, prefetched by its consumer a row ahead: both of its buffers
// are fetched. And an update prefetching its own Func's storage.
TEST(Prefetch, FuncsTuplesAndUpdates) {
    ImageParam in(Float(32), 2, "pft_in");
    in.set(random_buffer(Float(32), {40, 20}, 2));
    Func g("pft_g"), f("pft_f");
    g(x, y) = Tuple(in(x, y) * 2.0f, in(x, y) + 1.0f);
    g.compute_root();
    f(x, y) = g(x, y)[0] + g(x, y + 1)[1];
    RDom r(0, 40, "r");
    f(r, y) = f(r, y) * 0.5f + f(max(r - 1, 0), y);
    f.vectorize(x, 8).prefetch(g, y, y, 2);
    f.update().prefetch(f, y, y, 1, PrefetchBoundStrategy::Clamp);
    Buffer<> out(Float(32), {40, 19});
    f.realize(out);
    EXPECT_TRUE(matches_reference(f, out));
    std::string stmt = f.lowered_stmt();
    EXPECT_GE(count_of(stmt, "prefetch(pft_g.0["), 2) << stmt;
    EXPECT_GE(count_of(stmt, "prefetch(pft_g.1["), 2) << stmt;
    EXPECT_GE(count_of(stmt, "prefetch(pft_f["), 2) << stmt;
}

// The extent and first value of the loop `loop` (the first one of that name) of a lowered
// pipeline, with the loops and buffer fields of `values` set: the lets around it substituted.
class LoopAt : public ir::IRVisitor {
  public:
    LoopAt(std::string loop, std::map<std::string, Expr> values)
        : loop_(std::move(loop)), values_(std::move(values)) {}
    std::optional<int64_t> min, extent;

  protected:
    using IRVisitor::visit;
    void visit(const ir::LetStmt *op) override {
        values_[op->name] = ir::simplify(ir::substitute(values_, op->value));
        include(op->body);
        values_.erase(op->name);
    }
    void visit(const ir::For *op) override {
        if (op->name == loop_ && !extent) {
            min = ir::as_const_int(ir::simplify(ir::substitute(values_, op->min)));
            extent = ir::as_const_int(ir::simplify(ir::substitute(values_, op->extent)));
            return;
        }
        // An enclosing loop the test did not fix keeps its name: the result is not constant.
        include(op->min);
        include(op->extent);
        include(op->body);
    }

  private:
    std::string loop_;
    std::map<std::string, Expr> values_;
};

ir::Stmt lowered_body(const Func &f) {
    auto lowered = lowering::lower({lang::Function(f.contents())}, "pf_region",
                                   lowering::StrideVersions::Dense);
    return lowered.module.functions.at(0).body;
}

/// The buffer fields of a dense 2-D buffer `name` of the given size.
void dense_fields(std::map<std::string, Expr> &values, const std::string &name, int width,
                  int height) {
    values[name + ".min.0"] = 0;
    values[name + ".min.1"] = 0;
    values[name + ".extent.0"] = width;
    values[name + ".extent.1"] = height;
    values[name + ".stride.0"] = 1;
    values[name + ".stride.1"] = width;
}

// A 3x3 box filter over a zero-padded copy of the input made a row at a time (a sliding window
// outside the tiles), and a prefetch of the input at the tile loop for the next row: through
// the copy, the rows it fetches are the three the next row's tile reads, clamped to the image
// by the copy's own clamp, and its columns the tile's, one more on each side.
TEST(Prefetch, RegionThroughAPaddedCopyMadeOutsideTheLoop) {
    ImageParam in(Float(32), 2, "pfr_in");
    Func padded("pfr_padded"), f("pfr_out");
    Expr inside = x >= 0 && x < in.extent(0) && y >= 0 && y < in.extent(1);
    padded(x, y) =
        select(inside, in(clamp(x, 0, in.extent(0) - 1), clamp(y, 0, in.extent(1) - 1)), 0.0f);
    Expr total = 0.0f;
    for (int dy = -1; dy <= 1; dy++) {
        for (int dx = -1; dx <= 1; dx++)
            total += padded(x + dx, y + dy);
    }
    f(x, y) = total;
    f.split(x, xo, xi, 4, TailStrategy::GuardWithIf).prefetch(in, xo, y, 1);
    padded.store_root().compute_at(f, y);
    in.set(random_buffer(Float(32), {16, 12}, 3));
    Buffer<> out(Float(32), {16, 12});
    f.realize(out);
    EXPECT_TRUE(matches_reference(f, out));

    ir::Stmt body = lowered_body(f);
    struct Case {
        int tile, row, first_x, last_x, first_y, last_y;
    };
    for (const Case &c : {Case{1, 5, 3, 8, 5, 7}, Case{0, 0, 0, 4, 0, 2},
                          Case{3, 10, 11, 15, 10, 11}, Case{3, 11, 11, 15, 11, 11}}) {
        std::map<std::string, Expr> values;
        dense_fields(values, "pfr_in", 16, 12);
        dense_fields(values, "pfr_out", 16, 12);
        values["pfr_out.s0.xo"] = c.tile;
        values["pfr_out.s0.y"] = c.row;
        const std::string base = "pfr_out.s0.xo.prefetch0";
        LoopAt rows(base + ".d1", values);
        rows.include(body);
        ASSERT_TRUE(rows.min && rows.extent) << "tile " << c.tile << " row " << c.row;
        EXPECT_EQ(*rows.min, c.first_y) << "tile " << c.tile << " row " << c.row;
        EXPECT_EQ(*rows.min + *rows.extent - 1, c.last_y) << "tile " << c.tile << " row " << c.row;
        // Columns: the first element of each line, then the last element.
        values["pfr_out.s0.xo.prefetch0.d1"] = c.first_y;
        LoopAt lines(base + ".line", values);
        lines.include(body);
        ASSERT_TRUE(lines.extent) << "tile " << c.tile << " row " << c.row;
        EXPECT_EQ(*lines.extent, (c.last_x - c.first_x) / 16 + 1);
    }
}

// Where the region reaches past the data: Clamp fetches the part inside, GuardWithIf nothing.
TEST(Prefetch, ClampAndGuardWithIfAtTheLastRows) {
    ImageParam in(Float(32), 2, "pfg_in");
    for (PrefetchBoundStrategy strategy :
         {PrefetchBoundStrategy::Clamp, PrefetchBoundStrategy::GuardWithIf}) {
        Func f("pfg_out");
        f(x, y) = in(x, y) + in(x, y + 1);
        f.prefetch(in, y, y, 1, strategy);
        in.set(random_buffer(Float(32), {20, 12}, 4));
        Buffer<> out(Float(32), {20, 11});
        f.realize(out);
        EXPECT_TRUE(matches_reference(f, out));
        ir::Stmt body = lowered_body(f);
        const bool clamp = strategy == PrefetchBoundStrategy::Clamp;
        // Row y + 1 reads rows y + 1 and y + 2 of the 12.
        for (int row : {3, 10}) {
            std::map<std::string, Expr> values;
            dense_fields(values, "pfg_in", 20, 12);
            dense_fields(values, "pfg_out", 20, 11);
            values["pfg_out.s0.y"] = row;
            LoopAt all("pfg_out.s0.y.prefetch0", values);
            all.include(body);
            ASSERT_TRUE(all.extent) << "row " << row;
            LoopAt rows("pfg_out.s0.y.prefetch0.d1", values);
            rows.include(body);
            ASSERT_TRUE(rows.min && rows.extent) << "row " << row;
            if (row == 3) {
                EXPECT_EQ(*all.extent, 1);
                EXPECT_EQ(*rows.min, 4);
                EXPECT_EQ(*rows.extent, 2);
            } else {
                // Rows 11 and 12: only row 11 is in the image.
                EXPECT_EQ(*all.extent, clamp ? 1 : 0) << "clamp " << clamp;
                if (clamp) {
                    EXPECT_EQ(*rows.min, 11);
                    EXPECT_EQ(*rows.extent, 1);
                }
            }
        }
    }
}

}  // namespace
}  // namespace dsl
