#pragma once
/// Reduction domains: `RDom r(0, 10, 0, 5)` iterates r.x over [0, 10) and r.y over [0, 5), r.x
/// innermost. Updates that use an RDom run once per point of it, in that order.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "dsl/Buffer.h"
#include "dsl/Expr.h"

namespace dsl {

class ImageParam;

namespace detail {
struct RDomContents;
}

/// One variable of an RDom.
class RVar {
  public:
    /// A loop name of its own ("rv0", "rv1", ...) for the loops a schedule makes from RVars:
    ///   RVar ro, ri;
    ///   f.update().split(r.x, ro, ri, 4);
    /// Like RVar(name), it names a loop only and cannot be used in an expression.
    RVar();
    /// Variable `index` of `rdom`; with a null `rdom`, an undefined RVar.
    RVar(std::shared_ptr<detail::RDomContents> rdom, int index)
        : rdom_(std::move(rdom)), index_(index) {}
    /// A name for a loop that a schedule makes from RVars (by split or fuse), so that later
    /// directives can refer to it as an RVar, e.g.
    ///   RVar rxo("rxo"), rxi("rxi");
    ///   f.update().split(r.x, rxo, rxi, 8);
    ///   Func partial = f.update().rfactor(rxi, u);
    /// It names a loop only: it has no bounds and cannot be used in an expression.
    explicit RVar(std::string name) : name_(std::move(name)) {}

    const std::string &name() const;
    Expr min() const;
    Expr extent() const;
    operator Expr() const;  // NOLINT: implicit by design, so that `r + 1` works

  private:
    std::shared_ptr<detail::RDomContents> rdom_;
    int index_ = 0;
    std::string name_;  // of a loop-only RVar (no rdom_)
};

class RDom {
  public:
    /// An undefined domain.
    RDom() = default;
    /// A domain over the ranges `{min, extent}`, the first innermost.
    explicit RDom(const std::vector<std::pair<Expr, Expr>> &ranges, const std::string &name = "");
    RDom(const Expr &min0, const Expr &extent0, const std::string &name = "")
        : RDom(std::vector<std::pair<Expr, Expr>>{{min0, extent0}}, name) {}
    RDom(const Expr &min0, const Expr &extent0, const Expr &min1, const Expr &extent1,
         const std::string &name = "")
        : RDom(std::vector<std::pair<Expr, Expr>>{{min0, extent0}, {min1, extent1}}, name) {}
    RDom(const Expr &min0, const Expr &extent0, const Expr &min1, const Expr &extent1,
         const Expr &min2, const Expr &extent2, const std::string &name = "")
        : RDom(
              std::vector<std::pair<Expr, Expr>>{{min0, extent0}, {min1, extent1}, {min2, extent2}},
              name) {}
    /// Four ranges or more (min, extent, min, extent, ...), the first innermost.
    template <typename... Rest,
              typename = std::enable_if_t<(sizeof...(Rest) >= 6) && (sizeof...(Rest) % 2 == 0)>>
    RDom(const Expr &min0, const Expr &extent0, const Rest &...rest)
        : RDom(pairs_of(std::vector<Expr>{min0, extent0, Expr(rest)...})) {}
    /// The domain of a buffer's coordinates.
    explicit RDom(const Buffer<> &buffer);
    /// The domain of an input's coordinates, as the buffer passed when the pipeline runs has
    /// them.
    explicit RDom(const ImageParam &input);

    /// Restricts the domain to the points where `condition` holds. Conditions accumulate.
    RDom &where(const Expr &condition);

    bool defined() const { return contents_ != nullptr; }
    int dimensions() const;
    RVar operator[](int i) const;
    /// A one-dimensional RDom is usable as its only variable.
    operator RVar() const;  // NOLINT
    operator Expr() const;  // NOLINT

    /// The first four variables; those the domain lacks are undefined.
    RVar x{nullptr, 0}, y{nullptr, 0}, z{nullptr, 0}, w{nullptr, 0};

    const std::shared_ptr<detail::RDomContents> &contents() const { return contents_; }

  private:
    static std::vector<std::pair<Expr, Expr>> pairs_of(const std::vector<Expr> &bounds) {
        std::vector<std::pair<Expr, Expr>> ranges;
        for (size_t i = 0; i + 1 < bounds.size(); i += 2)
            ranges.emplace_back(bounds[i], bounds[i + 1]);
        return ranges;
    }

    std::shared_ptr<detail::RDomContents> contents_;
};

}  // namespace dsl
