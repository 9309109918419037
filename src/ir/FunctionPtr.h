#pragma once
/// How a `Call` refers to the Func it calls. Usually a strong reference; a call back to a Func
/// whose updates reach the caller (an update reading its own Func, or a Func read by an update of
/// the Func it reads) is weak, so that the definitions do not keep each other alive forever.
/// src/lang/FunctionReferences.h says which calls are weak.

#include <memory>

namespace dsl::lang {
struct FunctionContents;
}

namespace dsl::ir {

class FunctionPtr {
  public:
    FunctionPtr() = default;
    explicit FunctionPtr(std::shared_ptr<lang::FunctionContents> f) : strong_(std::move(f)) {}

    /// Whether it refers to a Func (true for a weak reference whose Func is gone, too).
    bool defined() const { return strong_ != nullptr || is_weak_; }
    bool is_weak() const { return is_weak_; }
    /// A strong reference (null if a weak one has expired).
    std::shared_ptr<lang::FunctionContents> lock() const {
        return strong_ ? strong_ : weak_.lock();
    }
    /// The same reference, weak.
    FunctionPtr weakened() const {
        FunctionPtr p;
        p.weak_ = lock();
        p.is_weak_ = true;
        return p;
    }
    /// The same reference, strong (undefined if a weak one has expired).
    FunctionPtr strengthened() const { return FunctionPtr(lock()); }

  private:
    std::shared_ptr<lang::FunctionContents> strong_;
    std::weak_ptr<lang::FunctionContents> weak_;
    bool is_weak_ = false;
};

}  // namespace dsl::ir
