#pragma once
/// The memory of a model's intermediate tensors (DESIGN.md §8, the memory planner): a tensor's
/// block returns to the pool after the last step that reads it, later tensors reuse it (the
/// smallest free block that fits), and the pool lives from one run to the next, so that a
/// model in steady state allocates nothing. It records the peak it held.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "dsl/Buffer.h"

namespace dsl::nn::model {

class MemoryPool {
  public:
    /// A dense buffer of `t` with `sizes` (dimension 0 innermost) in a pooled block (64-byte
    /// aligned). Its contents are unspecified.
    Buffer<> allocate(Type t, const std::vector<int> &sizes, const std::string &name);
    /// Returns the block of `b` (which allocate() made) to the pool.
    void release(const Buffer<> &b);

    /// Bytes in blocks in use now, the most at once so far, and in all blocks.
    int64_t in_use() const { return in_use_bytes_; }
    int64_t peak() const { return peak_bytes_; }
    int64_t reserved() const { return reserved_bytes_; }

  private:
    using Block = std::shared_ptr<uint8_t>;
    std::multimap<size_t, Block> free_;
    /// Blocks in use, by address, with their sizes.
    std::map<const void *, std::pair<size_t, Block>> used_;
    int64_t in_use_bytes_ = 0, peak_bytes_ = 0, reserved_bytes_ = 0;
};

}  // namespace dsl::nn::model
