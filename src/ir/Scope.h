#pragma once
/// A scoped symbol table: names bound to values, where an inner binding hides an outer one until
/// it is popped. Used by every pass that walks through lets and loops.

#include <map>
#include <string>
#include <vector>

#include "ir/Error.h"

namespace dsl::ir {

template <typename T>
class Scope {
  public:
    Scope() = default;
    /// A scope whose lookups fall back to `enclosing` (which must outlive this one).
    explicit Scope(const Scope<T> *enclosing) : enclosing_(enclosing) {}

    void push(const std::string &name, T value) { table_[name].push_back(std::move(value)); }
    void pop(const std::string &name) {
        auto it = table_.find(name);
        internal_assert(it != table_.end() && !it->second.empty())
            << "Scope::pop of \"" << name << "\", which is not bound";
        it->second.pop_back();
        if (it->second.empty()) table_.erase(it);
    }

    bool contains(const std::string &name) const {
        return table_.count(name) || (enclosing_ && enclosing_->contains(name));
    }
    /// The innermost binding of `name`; it must exist.
    const T &get(const std::string &name) const {
        auto it = table_.find(name);
        if (it != table_.end()) return it->second.back();
        internal_assert(enclosing_) << "Scope::get of \"" << name << "\", which is not bound";
        return enclosing_->get(name);
    }
    /// The innermost binding of `name`, or null.
    const T *find(const std::string &name) const {
        auto it = table_.find(name);
        if (it != table_.end()) return &it->second.back();
        return enclosing_ ? enclosing_->find(name) : nullptr;
    }
    bool empty() const { return table_.empty() && (!enclosing_ || enclosing_->empty()); }

  private:
    std::map<std::string, std::vector<T>> table_;
    const Scope<T> *enclosing_ = nullptr;
};

/// Binds `name` for the lifetime of this object.
template <typename T>
class ScopedBinding {
  public:
    ScopedBinding(Scope<T> &scope, const std::string &name, T value) : scope_(scope), name_(name) {
        scope_.push(name_, std::move(value));
    }
    ScopedBinding(const ScopedBinding &) = delete;
    ScopedBinding &operator=(const ScopedBinding &) = delete;
    ~ScopedBinding() { scope_.pop(name_); }

  private:
    Scope<T> &scope_;
    std::string name_;
};

}  // namespace dsl::ir
