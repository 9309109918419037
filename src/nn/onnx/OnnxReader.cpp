// ModelProto -> graph::Graph, TensorProto <-> Buffer.
#include "nn/onnx/OnnxReader.h"

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "ir/Error.h"
#include "nn/onnx/OpsetConversion.h"

namespace dsl::nn::onnx {

namespace {

namespace pb = ::onnx;

std::string directory_of(const std::string &path) {
    size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

/// A dense buffer of `t` with ONNX dims `shape` (outermost first), checked against int32.
Buffer<> make_buffer(Type t, const std::vector<int64_t> &shape, const std::string &name,
                     const std::string &where) {
    std::vector<int> sizes;
    int64_t n = 1;
    for (auto it = shape.rbegin(); it != shape.rend(); ++it) {
        user_assert(*it >= 0) << where << ": tensor \"" << name << "\" has a negative extent "
                              << *it << ".";
        user_assert(*it <= std::numeric_limits<int32_t>::max())
            << where << ": tensor \"" << name << "\" has an extent of " << *it
            << ", more than dsl's limit of 2^31 - 1 per axis.";
        n *= *it;
        user_assert(n <= std::numeric_limits<int32_t>::max())
            << where << ": tensor \"" << name
            << "\" has more than 2^31 - 1 elements, more than dsl's limit per tensor.";
        sizes.push_back(static_cast<int>(*it));
    }
    return Buffer<>(t, sizes, name);
}

template <typename Repeated, typename Store>
void copy_typed(const Repeated &field, int64_t n, uint8_t *dst, Store store,
                const std::string &name, const std::string &where) {
    user_assert(static_cast<int64_t>(field.size()) == n)
        << where << ": tensor \"" << name << "\" holds " << field.size() << " values but its shape "
        << "needs " << n << ".";
    for (int64_t i = 0; i < n; i++)
        store(dst, i, field.Get(static_cast<int>(i)));
}

Buffer<> tensor_from_proto(const pb::TensorProto &tp, const std::string &base_dir,
                           const std::string &where) {
    const std::string &name = tp.name();
    std::string unsupported;
    std::optional<Type> t = graph::element_type(tp.data_type(), &unsupported);
    user_assert(t) << where << ": tensor \"" << name << "\" holds " << unsupported
                   << " elements, which dsl does not support.";
    std::vector<int64_t> shape(tp.dims().begin(), tp.dims().end());
    Buffer<> b = make_buffer(*t, shape, name, where);
    const int64_t n = b.number_of_elements();
    const int bytes = t->bytes();
    auto *dst = static_cast<uint8_t *>(b.data());

    if (tp.data_location() == pb::TensorProto::EXTERNAL) {
        std::string location;
        int64_t offset = 0, length = -1;
        for (const auto &kv : tp.external_data()) {
            if (kv.key() == "location") location = kv.value();
            if (kv.key() == "offset") offset = std::stoll(kv.value());
            if (kv.key() == "length") length = std::stoll(kv.value());
        }
        user_assert(!location.empty() && location.find("..") == std::string::npos &&
                    location[0] != '/')
            << where << ": tensor \"" << name << "\" has external data at \"" << location
            << "\"; it must be a file beside the model.";
        std::string path = base_dir + "/" + location;
        std::ifstream in(path, std::ios::binary);
        user_assert(in.good()) << where << ": cannot open \"" << path
                               << "\", the external data of tensor \"" << name << "\".";
        user_assert(length < 0 || length == n * bytes)
            << where << ": tensor \"" << name << "\" has " << length
            << " bytes of external data but its shape needs " << n * bytes << ".";
        in.seekg(offset);
        in.read(reinterpret_cast<char *>(dst), n * bytes);
        user_assert(in.gcount() == n * bytes)
            << where << ": \"" << path << "\" ends before the " << n * bytes
            << " bytes of tensor \"" << name << "\" at offset " << offset << ".";
        return b;
    }
    if (tp.has_raw_data()) {
        const std::string &raw = tp.raw_data();
        user_assert(static_cast<int64_t>(raw.size()) == n * bytes)
            << where << ": tensor \"" << name << "\" has " << raw.size()
            << " bytes of data but its shape and type need " << n * bytes << ".";
        if (n > 0) std::memcpy(dst, raw.data(), raw.size());
        return b;
    }
    Type ty = *t;
    auto store_as = [&](uint8_t *d, int64_t i, auto v) {
        if (ty.is_float() && ty.bits() == 32) {
            float f = static_cast<float>(v);
            std::memcpy(d + i * 4, &f, 4);
        } else if (ty.is_float() && ty.bits() == 64) {
            double f = static_cast<double>(v);
            std::memcpy(d + i * 8, &f, 8);
        } else {
            // Integers, bool, and 16-bit floats (whose bits int32_data holds).
            uint64_t bits = static_cast<uint64_t>(v);
            std::memcpy(d + i * bytes, &bits, static_cast<size_t>(bytes));
        }
    };
    switch (tp.data_type()) {
        case pb::TensorProto::FLOAT:
            copy_typed(tp.float_data(), n, dst, store_as, name, where);
            break;
        case pb::TensorProto::DOUBLE:
            copy_typed(tp.double_data(), n, dst, store_as, name, where);
            break;
        case pb::TensorProto::INT64:
            copy_typed(tp.int64_data(), n, dst, store_as, name, where);
            break;
        case pb::TensorProto::UINT32:
        case pb::TensorProto::UINT64:
            copy_typed(tp.uint64_data(), n, dst, store_as, name, where);
            break;
        default:
            copy_typed(tp.int32_data(), n, dst, store_as, name, where);
            break;
    }
    return b;
}

void fill_value_info(const pb::ValueInfoProto &vi, graph::ValueInfo *out) {
    out->name = vi.name();
    if (!vi.has_type()) return;
    const pb::TypeProto &tp = vi.type();
    if (!tp.has_tensor_type()) {
        out->unsupported_type = tp.has_sequence_type()   ? "sequence"
                                : tp.has_map_type()      ? "map"
                                : tp.has_optional_type() ? "optional"
                                                         : "non-tensor";
        return;
    }
    const auto &tt = tp.tensor_type();
    out->type = graph::element_type(tt.elem_type(), &out->unsupported_type);
    if (!tt.has_shape()) return;
    std::vector<graph::Dim> dims;
    for (const auto &d : tt.shape().dim()) {
        graph::Dim dim;
        if (d.has_dim_value()) dim.value = d.dim_value();
        if (d.has_dim_param()) dim.symbol = d.dim_param();
        dims.push_back(dim);
    }
    out->shape = dims;
}

graph::Attribute read_attribute(const pb::AttributeProto &a, const std::string &base_dir,
                                const std::string &where) {
    graph::Attribute r;
    using K = graph::Attribute::Kind;
    switch (a.type()) {
        case pb::AttributeProto::FLOAT:
            r.kind = K::Float;
            r.f = a.f();
            break;
        case pb::AttributeProto::INT:
            r.kind = K::Int;
            r.i = a.i();
            break;
        case pb::AttributeProto::STRING:
            r.kind = K::String;
            r.s = a.s();
            break;
        case pb::AttributeProto::TENSOR:
            r.kind = K::Tensor;
            r.t = tensor_from_proto(a.t(), base_dir, where);
            break;
        case pb::AttributeProto::FLOATS:
            r.kind = K::Floats;
            r.floats.assign(a.floats().begin(), a.floats().end());
            break;
        case pb::AttributeProto::INTS:
            r.kind = K::Ints;
            r.ints.assign(a.ints().begin(), a.ints().end());
            break;
        case pb::AttributeProto::STRINGS:
            r.kind = K::Strings;
            r.strings.assign(a.strings().begin(), a.strings().end());
            break;
        case pb::AttributeProto::GRAPH:
        case pb::AttributeProto::GRAPHS:
            r.kind = K::Graph;
            break;
        default:
            r.kind = K::Other;
            break;
    }
    return r;
}

/// Whether a tensor of the graph (an initializer, or a tensor attribute of a node, subgraphs
/// included) keeps its data in another file.
bool has_external_data(const pb::GraphProto &g) {
    auto external = [](const pb::TensorProto &t) {
        return t.data_location() == pb::TensorProto::EXTERNAL;
    };
    for (const auto &t : g.initializer())
        if (external(t)) return true;
    for (const auto &n : g.node()) {
        for (const auto &a : n.attribute()) {
            if (a.has_t() && external(a.t())) return true;
            for (const auto &t : a.tensors())
                if (external(t)) return true;
            if (a.has_g() && has_external_data(a.g())) return true;
            for (const auto &sub : a.graphs())
                if (has_external_data(sub)) return true;
        }
    }
    return false;
}

}  // namespace

graph::Graph read_model(const std::string &path, int64_t min_opset,
                        const std::map<std::string, graph::ValueInfo> &known) {
    pb::ModelProto model;
    {
        // Parsed from the file as it is read: no copy of the whole file in memory.
        int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
        user_assert(fd >= 0) << path << ": cannot open the model (does the file exist?).";
        bool parsed = model.ParseFromFileDescriptor(fd);
        close(fd);
        user_assert(parsed)
            << path
            << ": not a valid ONNX model (the protobuf does not parse; is the file truncated?).";
    }
    try {
        // The path form reads and parses the file again; it is needed only to find external
        // data files beside the model.
        if (has_external_data(model.graph()))
            pb::checker::check_model(path);
        else
            pb::checker::check_model(model);
    } catch (const std::exception &e) {
        // On one line: the checker's message spans several.
        std::string what;
        for (char c : std::string(e.what())) {
            if (c != '\n')
                what += c;
            else if (!what.empty() && what.back() != ' ')
                what += ' ';
        }
        user_assert(false) << path << ": the ONNX checker rejects the model: " << what;
    }
    raise_opset(model, min_opset, path, known);
    const std::string base_dir = directory_of(path);
    graph::Graph g;
    g.source = path;
    g.name = model.graph().name();
    g.opset = standard_opset(model);
    const pb::GraphProto &gp = model.graph();
    for (const auto &init : gp.initializer()) {
        g.initializers[init.name()] = tensor_from_proto(init, base_dir, path);
    }
    for (const auto &vi : gp.input()) {
        if (g.initializers.count(vi.name())) continue;
        graph::ValueInfo info;
        fill_value_info(vi, &info);
        g.inputs.push_back(info);
    }
    for (const auto &vi : gp.output()) {
        graph::ValueInfo info;
        fill_value_info(vi, &info);
        g.outputs.push_back(info);
    }
    for (const auto &vi : gp.value_info()) {
        graph::ValueInfo info;
        fill_value_info(vi, &info);
        g.value_info[info.name] = info;
    }
    int index = 0;
    for (const auto &np : gp.node()) {
        graph::Node n;
        n.name = np.name().empty() ? np.op_type() + "_" + std::to_string(index) : np.name();
        index++;
        n.op_type = np.op_type();
        n.domain = np.domain() == "ai.onnx" ? "" : np.domain();
        n.inputs.assign(np.input().begin(), np.input().end());
        n.outputs.assign(np.output().begin(), np.output().end());
        for (const auto &a : np.attribute()) {
            n.attributes[a.name()] = read_attribute(a, base_dir, path + ": " + n.describe());
        }
        g.nodes.push_back(std::move(n));
    }
    return g;
}

Buffer<> read_tensor(const std::string &path, std::string *name) {
    std::string bytes = read_file(path, "tensor");
    pb::TensorProto tp;
    user_assert(tp.ParseFromString(bytes))
        << path << ": not a serialized ONNX TensorProto (the protobuf does not parse).";
    if (name) *name = tp.name();
    return tensor_from_proto(tp, directory_of(path), path);
}

std::string read_file(const std::string &path, const char *what) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    user_assert(in.good()) << path << ": cannot open the " << what << " (does the file exist?).";
    // One allocation of the file's size and one read: a model of tens of MB grown through a
    // string stream was copied and page-faulted several times over.
    const std::streamoff size = in.tellg();
    if (size < 0) {  // not a regular file: read to the end
        in.clear();
        in.seekg(0);
        std::ostringstream s;
        s << in.rdbuf();
        return s.str();
    }
    std::string bytes;
    if (size > 0) {
        bytes.resize(static_cast<size_t>(size));
        in.seekg(0);
        in.read(&bytes[0], size);
        user_assert(in.gcount() == size) << path << ": the " << what << " could not be read whole ("
                                         << in.gcount() << " of " << size << " bytes).";
    }
    return bytes;
}

}  // namespace dsl::nn::onnx
