#pragma once
/// Editing a graph in place (DESIGN.md §8): the lookups the graph rewrites share (constants,
/// producers, readers), new names that collide with nothing, and nodes removed at the end.

#include <set>
#include <string>
#include <vector>

#include "nn/graph/Graph.h"

namespace dsl::nn::graph {

class GraphEdit {
  public:
    explicit GraphEdit(Graph &g);

    Graph &graph() { return g_; }
    const Graph &graph() const { return g_; }
    Node &node(size_t i) { return g_.nodes[i]; }
    const Node &node(size_t i) const { return g_.nodes[i]; }

    /// The constant value `name`: an initializer, or the `value` of a Constant node; undefined
    /// otherwise (and for the empty name).
    Buffer<> constant(const std::string &name) const;
    /// The nodes (not removed) that read `value`.
    std::vector<size_t> readers(const std::string &value) const;
    /// The node (not removed) producing `value`, or -1.
    int producer(const std::string &value) const;
    bool is_graph_output(const std::string &value) const { return outputs_.count(value) != 0; }

    /// A value name starting with `base` that no initializer, node or graph value has yet.
    std::string fresh_name(const std::string &base);
    /// A new initializer holding `b`, named after `base`; returns its name.
    std::string add_initializer(const std::string &base, const Buffer<> &b);
    /// Appends a node (the graph need not be in topological order); returns its index.
    size_t add_node(Node n);

    void remove(size_t i) { removed_.insert(i); }
    bool removed(size_t i) const { return removed_.count(i) != 0; }
    /// Erases the removed nodes. Indices are invalid afterwards.
    void commit();
    /// Erases the constants (initializers and Constant nodes) that no node reads and that are
    /// not graph outputs: weights a rewrite replaced. Commits.
    void remove_unused_constants();

    static int64_t int_attr(const Node &n, const std::string &name, int64_t default_value);
    static double float_attr(const Node &n, const std::string &name, double default_value);

  private:
    Graph &g_;
    std::set<std::string> outputs_, taken_;
    std::set<size_t> removed_;
};

/// The indices of `g`'s nodes in an order in which each value is produced before it is read.
/// `*problem` receives what prevents one (a value produced twice, an input nobody produces, a
/// cycle), naming the node; the order is then partial.
std::vector<size_t> topological_order(const Graph &g, std::string *problem);

/// Whether `b` is defined and its elements are contiguous in dimension order.
bool is_dense(const Buffer<> &b);

/// A constant for a rewrite: a 0-d buffer of `t` (float32, or 8- or 32-bit integers) holding `v`.
Buffer<> scalar_constant(Type t, double v);

/// Int32 sums' bias: b[c] / (x_scale * w_scales[c]) rounded to the nearest (half to even) and
/// saturated, the scale computed in float32 as the bias's DequantizeLinear has it. One weight
/// scale serves every channel.
Buffer<> int32_bias(const std::vector<double> &b, float x_scale,
                    const std::vector<float> &w_scales);

/// A dense float32 constant of `elements` elements, or null.
const float *dense_floats(const Buffer<> &b, int64_t elements);

}  // namespace dsl::nn::graph
