#pragma once
/// How a `Call` refers to the Func it calls. Usually a strong reference; a Func whose update
/// calls itself holds a weak one, so that the definition does not keep itself alive forever.

#include <memory>

namespace dsl::lang {
struct FunctionContents;
}

namespace dsl::ir {

class FunctionPtr {
  public:
    FunctionPtr() = default;
    explicit FunctionPtr(std::shared_ptr<lang::FunctionContents> f) : strong_(std::move(f)) {}

    bool defined() const { return strong_ != nullptr || !weak_.expired(); }
    lang::FunctionContents *get() const { return strong_ ? strong_.get() : weak_.lock().get(); }
    /// A strong reference (null if a weak one has expired).
    std::shared_ptr<lang::FunctionContents> lock() const {
        return strong_ ? strong_ : weak_.lock();
    }
    /// The same reference, weak.
    FunctionPtr weakened() const {
        FunctionPtr p;
        p.weak_ = lock();
        return p;
    }

  private:
    std::shared_ptr<lang::FunctionContents> strong_;
    std::weak_ptr<lang::FunctionContents> weak_;
};

}  // namespace dsl::ir
