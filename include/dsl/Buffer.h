#pragma once
/// `Buffer<T>`: a multi-dimensional array, the input and output of pipelines. It wraps the C
/// struct `dsl_buffer_t` (dsl/runtime/dsl_runtime.h) without copies, owns its memory or views
/// someone else's, and is cheap to copy: copies share the data.
///
///   Buffer<uint8_t> img(640, 480, 3);      // allocated, dense, x innermost
///   img(10, 20, 1) = 255;
///   Buffer<uint8_t> roi = img.cropped(0, 100, 64);   // a view: same memory, x in [100, 164)
///   Buffer<> any = img;                    // untyped handle; Buffer<uint8_t>(any) checks the type

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "dsl/DeviceAPI.h"
#include "dsl/Error.h"
#include "dsl/Expr.h"
#include "dsl/Target.h"
#include "dsl/Type.h"
#include "dsl/runtime/dsl_runtime.h"

namespace dsl {

/// The second template argument of a Buffer whose number of dimensions is known only at run
/// time (Buffer<T> is Buffer<T, AnyDims>).
constexpr int AnyDims = -1;

template <typename T = void, int Dims = AnyDims>
class Buffer;

namespace detail {

/// What every copy of a Buffer shares: the raw struct, its dimensions and the memory (if owned).
/// A device copy (raw.device) belongs to these contents alone: released with them, and not
/// shared with the views made from them.
struct BufferContents {
    dsl_buffer_t raw{};
    std::vector<dsl_dimension_t> dims;
    /// Keeps owned memory (or the memory of the buffer this one is a view of) alive.
    std::shared_ptr<uint8_t> allocation;
    std::string name;

    BufferContents() = default;
    /// The same host memory and dimensions, without the device copy.
    BufferContents(const BufferContents &other)
        : raw(other.raw), dims(other.dims), allocation(other.allocation), name(other.name) {
        raw.device = 0;
        raw.device_interface = nullptr;
        raw.flags &=
            ~static_cast<uint64_t>(dsl_buffer_flag_host_dirty | dsl_buffer_flag_device_dirty);
    }
    BufferContents &operator=(const BufferContents &) = delete;
    ~BufferContents();
};

// The device side of buffers (Buffer.cpp), through the runtime's C API (dsl_runtime.h): a
// buffer with a device copy got it from the runtime, which is then part of the program. Each
// throws a RuntimeError on failure.
void buffer_copy_to_host(BufferContents &contents);
void buffer_device_free(BufferContents &contents);
void buffer_device_sync(BufferContents &contents);
/// Needs the compiler's library (it picks the runtime's device interface); BufferDevice.cpp.
void buffer_copy_to_device(BufferContents &contents, DeviceAPI api, const Target &target);

[[noreturn]] void buffer_error(const std::string &message);
Type buffer_type(const dsl_buffer_t &raw);
dsl_type_t to_raw_type(Type t);
std::string fresh_buffer_name();
}  // namespace detail

namespace detail {
/// Keeps a template parameter out of argument deduction (std::type_identity in C++20).
template <typename X>
struct NotDeduced {
    using type = X;
};

/// How many ints a callable takes (1 to 16), or 0 if it takes none of those counts.
template <typename F, size_t... I>
constexpr bool takes_ints(std::index_sequence<I...>) {
    return std::is_invocable_v<F, decltype((void)I, int())...>;
}
template <typename F, size_t N = 1>
constexpr size_t int_arity() {
    if constexpr (N > 16) {
        return 0;
    } else if constexpr (takes_ints<F>(std::make_index_sequence<N>())) {
        return N;
    } else {
        return int_arity<F, N + 1>();
    }
}
template <typename F, size_t... I>
decltype(auto) call_with_ints(F &f, const int *p, std::index_sequence<I...>) {
    return f(p[I]...);
}
/// `f(p[0], ..., p[N-1])`, or `f(p)` if f takes the coordinates as a pointer, or `f()` if it
/// takes nothing.
template <typename F>
decltype(auto) call_at(F &f, const int *p) {
    if constexpr (std::is_invocable_v<F, const int *>) {
        return f(p);
    } else if constexpr (std::is_invocable_v<F>) {
        return f();
    } else {
        constexpr size_t n = int_arity<F>();
        static_assert(n > 0,
                      "f must take (const int *), 1 to 16 ints (one per dimension) or nothing");
        return call_with_ints(f, p, std::make_index_sequence<n>());
    }
}

/// The value of `buffer` at symbolic coordinates, as an Expr (see Buffer::operator()).
Expr buffer_access(const Buffer<void, AnyDims> &buffer, const std::vector<Expr> &coords);

template <typename... Args>
constexpr bool all_integral() {
    return (std::is_integral_v<Args> && ...);
}

}  // namespace detail

/// One dimension of a buffer.
class BufferDimension {
  public:
    explicit BufferDimension(const dsl_dimension_t &d) : d_(d) {}
    int min() const { return d_.min; }
    int extent() const { return d_.extent; }
    int max() const { return d_.min + d_.extent - 1; }
    int stride() const { return d_.stride; }

    /// The coordinates min() to max(): `for (int x : buffer.dim(0))`.
    class iterator {
      public:
        explicit iterator(int v) : v_(v) {}
        int operator*() const { return v_; }
        iterator &operator++() {
            ++v_;
            return *this;
        }
        bool operator!=(const iterator &o) const { return v_ != o.v_; }
        bool operator==(const iterator &o) const { return v_ == o.v_; }

      private:
        int v_;
    };
    iterator begin() const { return iterator(min()); }
    iterator end() const { return iterator(min() + extent()); }

  private:
    const dsl_dimension_t &d_;
};

template <typename T, int Dims>
class Buffer {
    static constexpr bool kTyped = !std::is_void_v<T>;
    static_assert(Dims >= AnyDims && Dims <= 16,
                  "Buffer<T, Dims>: Dims is 0 to 16, or AnyDims (-1) for any number");

  public:
    using ElemType = T;
    /// Dims: the number of dimensions every Buffer of this type has, or AnyDims.
    static constexpr int static_dimensions() { return Dims; }
    static constexpr bool has_static_dimensions = Dims != AnyDims;
    /// Whether the element type is in the C++ type (T not void), and which it is.
    static constexpr bool has_static_halide_type = kTyped;
    template <typename U = T, typename = std::enable_if_t<!std::is_void_v<U>>>
    static constexpr dsl_type_t static_halide_type() {
        return type_of<U>();
    }

    /// An undefined buffer.
    Buffer() = default;

    /// Allocates a dense buffer of the given sizes (dimension 0 innermost), zero-filled.
    template <typename U = T, typename = std::enable_if_t<!std::is_void_v<U>>>
    explicit Buffer(const std::vector<int> &sizes, const std::string &name = "")
        : Buffer(type_of<U>(), sizes, name) {}
    template <typename U = T, typename = std::enable_if_t<!std::is_void_v<U>>>
    explicit Buffer(int width) : Buffer(std::vector<int>{width}) {}
    template <typename U = T, typename = std::enable_if_t<!std::is_void_v<U>>>
    Buffer(int width, int height) : Buffer(std::vector<int>{width, height}) {}
    template <typename U = T, typename = std::enable_if_t<!std::is_void_v<U>>>
    Buffer(int width, int height, int channels)
        : Buffer(std::vector<int>{width, height, channels}) {}
    template <typename U = T, typename = std::enable_if_t<!std::is_void_v<U>>>
    Buffer(int d0, int d1, int d2, int d3) : Buffer(std::vector<int>{d0, d1, d2, d3}) {}
    /// Five dimensions or more (up to 16, as Halide's Buffer), dimension 0 first.
    template <typename... Rest, typename U = T,
              typename = std::enable_if_t<!std::is_void_v<U> && (sizeof...(Rest) >= 4) &&
                                          detail::all_integral<Rest...>()>>
    Buffer(int d0, Rest... rest) : Buffer(std::vector<int>{d0, static_cast<int>(rest)...}) {}
    /// A named buffer of one to three dimensions: `Buffer<float> b(640, 480, "input")`.
    template <typename U = T, typename = std::enable_if_t<!std::is_void_v<U>>>
    Buffer(int width, const std::string &name) : Buffer(std::vector<int>{width}, name) {}
    template <typename U = T, typename = std::enable_if_t<!std::is_void_v<U>>>
    Buffer(int width, int height, const std::string &name)
        : Buffer(std::vector<int>{width, height}, name) {}
    template <typename U = T, typename = std::enable_if_t<!std::is_void_v<U>>>
    Buffer(int width, int height, int channels, const std::string &name)
        : Buffer(std::vector<int>{width, height, channels}, name) {}
    /// A buffer of no dimensions: one value (`b()` reads it).
    template <typename U = T, typename = std::enable_if_t<!std::is_void_v<U>>>
    static Buffer make_scalar(const std::string &name = "") {
        return Buffer(std::vector<int>{}, name);
    }

    /// A zero-filled width x height x channels buffer with the channels innermost in memory
    /// (RGBRGB..., as image files and Halide's make_interleaved store them): dimension 0 (x) has
    /// stride `channels`, 1 (y) width * channels, 2 (c) 1.
    template <typename U = T, typename = std::enable_if_t<!std::is_void_v<U>>>
    static Buffer make_interleaved(int width, int height, int channels,
                                   const std::string &name = "") {
        return make_interleaved(type_of<U>(), width, height, channels, name);
    }
    static Buffer make_interleaved(Type t, int width, int height, int channels,
                                   const std::string &name = "") {
        return Buffer(t, std::vector<int>{channels, width, height}, name)
            .transposed(0, 1)
            .transposed(1, 2);
    }
    /// Wraps interleaved memory (`data` holds height rows of width pixels of `channels`
    /// values); the caller keeps it alive.
    template <typename U = T, typename = std::enable_if_t<!std::is_void_v<U>>>
    static Buffer make_interleaved(U *data, int width, int height, int channels,
                                   const std::string &name = "") {
        // The wrapping constructor checks the extents; the strides must fit int32.
        if (int64_t(width) * height * channels > INT32_MAX)
            detail::buffer_error("Buffer: more than 2^31 - 1 elements, the most one holds.");
        return Buffer(
            type_of<U>(), data,
            {{0, width, channels, 0}, {0, height, width * channels, 0}, {0, channels, 1, 0}}, name);
    }

    /// Allocates a dense zero-filled buffer of element type `t` (which must match T if typed).
    Buffer(Type t, const std::vector<int> &sizes, const std::string &name = "") {
        check_type(t);
        std::vector<dsl_dimension_t> dims;
        int64_t stride = 1;
        for (int s : sizes) {
            if (s < 0) {
                detail::buffer_error("Buffer" + (name.empty() ? "" : " \"" + name + "\"") +
                                     ": the size " + std::to_string(s) + " is negative.");
            }
            dims.push_back({0, s, static_cast<int32_t>(stride), 0});
            stride *= s;
            if (stride > INT32_MAX)
                detail::buffer_error("Buffer: more than 2^31 - 1 elements, the most one holds.");
        }
        allocate(t, dims, static_cast<size_t>(stride), name);
    }

    /// `Buffer<> b(Float(32), 640, 480)`: the element type and the sizes.
    template <typename... Ints, typename = std::enable_if_t<detail::all_integral<Ints...>()>>
    Buffer(Type t, int d0, Ints... rest)
        : Buffer(t, std::vector<int>{d0, static_cast<int>(rest)...}) {}
    /// Allocates a zero-filled buffer of the given sizes whose dimensions are laid out in
    /// memory in `storage_order`, innermost first: `Buffer<uint8_t>({w, h, 3}, {2, 0, 1})` is
    /// interleaved (the channels innermost).
    template <typename U = T, typename = std::enable_if_t<!std::is_void_v<U>>>
    Buffer(const std::vector<int> &sizes, const std::vector<int> &storage_order,
           const std::string &name = "")
        : Buffer(dense_in_order(type_of<U>(), shape_of(sizes, name), storage_order, name)) {}
    template <typename U = T, typename = std::enable_if_t<!std::is_void_v<U>>>
    Buffer(const std::vector<int> &sizes, std::initializer_list<int> storage_order,
           const std::string &name = "")
        : Buffer(sizes, std::vector<int>(storage_order), name) {}

    /// Wraps external memory laid out densely (dimension 0 innermost); the caller keeps it alive.
    /// Wraps `data`, dense, of the given sizes: `Buffer<float> b(ptr, width, height)`. With
    /// `nullptr` the Buffer has a shape but no memory: realize() into it asks the pipeline
    /// which region it would write (a bounds query), and sets the shape to it.
    template <typename... Rest, typename U = T,
              typename = std::enable_if_t<!std::is_void_v<U> && detail::all_integral<Rest...>()>>
    Buffer(typename detail::NotDeduced<U>::type *data, int d0, Rest... rest)
        : Buffer(data, std::vector<int>{d0, static_cast<int>(rest)...}) {}
    template <typename U = T, typename = std::enable_if_t<!std::is_void_v<U>>>
    Buffer(typename detail::NotDeduced<U>::type *data, const std::vector<int> &sizes,
           const std::string &name = "") {
        std::vector<dsl_dimension_t> dims;
        int64_t stride = 1;
        for (int s : sizes) {
            check_extent(s, name);
            dims.push_back({0, s, static_cast<int32_t>(stride), 0});
            stride *= s;
            if (stride > INT32_MAX)
                detail::buffer_error("Buffer: more than 2^31 - 1 elements, the most one holds.");
        }
        wrap(type_of<U>(), reinterpret_cast<uint8_t *>(const_cast<std::remove_cv_t<U> *>(data)),
             dims, name);
    }

    /// Wraps external memory with any mins and strides (in elements). `data` points at the
    /// element at the mins. Strides may be negative (a flipped view), and an input may repeat
    /// elements (stride 0 broadcasts); an output's elements must not share memory, which
    /// realize() checks. Extents must not be negative.
    Buffer(Type t, void *data, const std::vector<dsl_dimension_t> &dims,
           const std::string &name = "") {
        check_type(t);
        for (const dsl_dimension_t &d : dims)
            check_extent(d.extent, name);
        wrap(t, static_cast<uint8_t *>(data), dims, name);
    }

    /// Wraps memory of `d` dimensions whose mins, extents and strides `shape` gives (Halide's
    /// halide_dimension_t array): `Buffer<int> b(ptr, 3, shape)`.
    template <typename U = T, typename = std::enable_if_t<!std::is_void_v<U>>>
    Buffer(typename detail::NotDeduced<U>::type *data, int d, const dsl_dimension_t *shape,
           const std::string &name = "")
        : Buffer(type_of<U>(), const_cast<std::remove_cv_t<U> *>(data),
                 std::vector<dsl_dimension_t>(shape, shape + d), name) {}
    template <typename U = T, typename = std::enable_if_t<!std::is_void_v<U>>>
    Buffer(typename detail::NotDeduced<U>::type *data, const std::vector<dsl_dimension_t> &shape,
           const std::string &name = "")
        : Buffer(type_of<U>(), const_cast<std::remove_cv_t<U> *>(data), shape, name) {}
    Buffer(Type t, void *data, int d, const dsl_dimension_t *shape, const std::string &name = "")
        : Buffer(t, data, std::vector<dsl_dimension_t>(shape, shape + d), name) {}

    /// Wraps the memory an existing `dsl_buffer_t` describes (e.g. an argument of an extern
    /// stage's function): its host pointer, type, mins, extents and strides, which the caller
    /// keeps alive. Without host memory (a bounds query) it wraps none.
    explicit Buffer(const dsl_buffer_t &raw, const std::string &name = "")
        : Buffer(detail::buffer_type(raw), raw.host,
                 std::vector<dsl_dimension_t>(raw.dim, raw.dim + raw.dimensions), name) {}

    /// Converts between typed and untyped handles, and between a fixed and any number of
    /// dimensions; checks the element type and the number of dimensions.
    template <typename U, int D>
    Buffer(const Buffer<U, D> &other)  // NOLINT: implicit by design
        : contents_(other.contents()) {
        static_assert(Dims == AnyDims || D == AnyDims || D == Dims,
                      "Buffer<T, Dims>: a Buffer of another fixed number of dimensions");
        static_assert(!std::is_const_v<U> || std::is_const_v<T>,
                      "Buffer<T>: made from a Buffer<const T>, which may not be written; use "
                      "Buffer<const T>, or copy() it");
        if (defined()) {
            check_type(type());
            check_dimensions(dimensions(), name());
        }
    }

    bool defined() const { return contents_ != nullptr; }
    const std::string &name() const { return contents_->name; }
    Type type() const { return detail::buffer_type(contents_->raw); }
    int dimensions() const { return contents_ ? contents_->raw.dimensions : 0; }
    BufferDimension dim(int i) const {
        check_dim(i);
        return BufferDimension(contents_->dims[i]);
    }
    /// Dimension `d`'s first coordinate, extent, last coordinate and stride (dim(d)'s).
    int min(int d) const { return dim(d).min(); }
    int extent(int d) const { return dim(d).extent(); }
    int max(int d) const { return dim(d).max(); }
    int stride(int d) const { return dim(d).stride(); }
    /// The first and last coordinates of dimensions 0 (left, right) and 1 (top, bottom).
    int left() const { return dim(0).min(); }
    int right() const { return dim(0).max(); }
    int top() const { return dim(1).min(); }
    int bottom() const { return dim(1).max(); }
    int width() const { return dimensions() > 0 ? dim(0).extent() : 1; }
    int height() const { return dimensions() > 1 ? dim(1).extent() : 1; }
    int channels() const { return dimensions() > 2 ? dim(2).extent() : 1; }
    /// The bytes from the lowest to the highest element's address, both included (the memory
    /// the Buffer spans; more than number_of_elements() * bytes when it is not dense).
    size_t size_in_bytes() const {
        if (number_of_elements() == 0) return 0;
        int64_t span = 1;
        for (int i = 0; i < dimensions(); i++)
            span += int64_t(dim(i).extent() - 1) * std::abs(int64_t(dim(i).stride()));
        return static_cast<size_t>(span) * type().bytes();
    }
    int64_t number_of_elements() const {
        int64_t n = 1;
        for (int i = 0; i < dimensions(); i++)
            n *= dim(i).extent();
        return n;
    }

    /// The raw struct, for generated code and C APIs.
    dsl_buffer_t *raw_buffer() const { return contents_ ? &contents_->raw : nullptr; }
    /// The raw struct, where a C function (an AOT-compiled pipeline, an extern stage's
    /// callee) takes a `dsl_buffer_t *` (`halide_buffer_t *`): `brighten(input, output)`.
    operator dsl_buffer_t *() const { return raw_buffer(); }  // NOLINT: implicit by design
    /// This handle (Halide's Buffer::get() returns the runtime buffer it wraps, which in dsl is
    /// the Buffer itself).
    Buffer *get() { return this; }
    const Buffer *get() const { return this; }

    /// The lowest and one past the highest address of the elements (the memory the Buffer
    /// spans, see size_in_bytes()): `for (float v : dense_buffer)` visits every element.
    auto *begin() const {
        if (!defined()) return cast_host(nullptr);
        uint8_t *p = contents_->raw.host;
        for (int i = 0; i < dimensions(); i++) {
            if (dim(i).stride() < 0)
                p += int64_t(dim(i).extent() - 1) * dim(i).stride() * type().bytes();
        }
        return cast_host(p);
    }
    auto *end() const {
        if (!defined()) return cast_host(nullptr);
        return cast_host(reinterpret_cast<uint8_t *>(begin()) + size_in_bytes());
    }
    /// Pointer to the element at the mins of every dimension.
    auto *data() const { return cast_host(contents_->raw.host); }

    /// In a definition, the buffer's value at symbolic coordinates: `f(x, y) = img(x + 1, y)`.
    template <typename... Args, typename = std::enable_if_t<!detail::all_integral<Args...>()>>
    Expr operator()(const Args &...coords) const {
        return detail::buffer_access(Buffer<void>(*this), std::vector<Expr>{Expr(coords)...});
    }
    Expr operator()(const std::vector<Expr> &coords) const {
        return detail::buffer_access(Buffer<void>(*this), coords);
    }

    /// Element access by coordinates (not offsets): `img(x, y, c)`. Coordinates past the last
    /// dimension may be given if they are 0 (`scalar(0)` reads a 0-dimensional buffer).
    template <typename... Ints, typename U = T,
              typename = std::enable_if_t<!std::is_void_v<U> && detail::all_integral<Ints...>()>>
    U &operator()(Ints... coords) const {
        static_assert((std::is_integral_v<Ints> && ...), "Buffer coordinates must be integers");
        const int c[sizeof...(Ints) + 1] = {static_cast<int>(coords)...,
                                            0};  // +1: zero-dim buffers
        return *address_of(c, static_cast<int>(sizeof...(Ints)));
    }
    template <typename U = T, typename = std::enable_if_t<!std::is_void_v<U>>>
    U &operator()(const std::vector<int> &coords) const {
        return *address_of(coords.data(), static_cast<int>(coords.size()));
    }
    /// Element access by a pointer to dimensions() coordinates (as for_each_element gives).
    template <typename U = T, typename = std::enable_if_t<!std::is_void_v<U>>>
    U &operator()(const int *coords) const {
        return *reinterpret_cast<U *>(byte_address(coords));
    }

    /// Whether the coordinates lie inside the buffer.
    bool contains(const std::vector<int> &coords) const {
        if (static_cast<int>(coords.size()) != dimensions()) return false;
        for (int i = 0; i < dimensions(); i++) {
            if (coords[i] < dim(i).min() || coords[i] > dim(i).max()) return false;
        }
        return true;
    }

    // Views: each shares memory with this buffer.

    /// Restricts dimension `d` to [min, min + extent), which must lie inside it.
    Buffer cropped(int d, int min, int extent) const {
        check_dim(d);
        if (min < dim(d).min() || min + extent - 1 > dim(d).max() || extent < 0) {
            detail::buffer_error("Buffer \"" + name() + "\": crop of dimension " +
                                 std::to_string(d) + " to [" + std::to_string(min) + ", " +
                                 std::to_string(min + extent - 1) + "] is outside its range [" +
                                 std::to_string(dim(d).min()) + ", " +
                                 std::to_string(dim(d).max()) + "].");
        }
        Buffer b = view();
        b.contents_->raw.host +=
            static_cast<int64_t>(min - dim(d).min()) * dim(d).stride() * type().bytes();
        b.contents_->dims[d].min = min;
        b.contents_->dims[d].extent = extent;
        return b;
    }
    /// Shifts the coordinates of dimension `d` by `delta`.
    Buffer translated(int d, int delta) const {
        check_dim(d);
        Buffer b = view();
        b.contents_->dims[d].min += delta;
        return b;
    }
    /// Swaps dimensions `d0` and `d1`.
    Buffer transposed(int d0, int d1) const {
        check_dim(d0);
        check_dim(d1);
        Buffer b = view();
        std::swap(b.contents_->dims[d0], b.contents_->dims[d1]);
        return b;
    }
    /// Removes dimension `d`, fixing it at coordinate `pos` (a Buffer<T, N> gives a
    /// Buffer<T, N - 1>).
    Buffer<T, Dims == AnyDims ? AnyDims : Dims - 1> sliced(int d, int pos) const {
        static_assert(Dims != 0, "Buffer<T, 0>: no dimension to slice");
        Buffer b = cropped(d, pos, 1);
        b.contents_->dims.erase(b.contents_->dims.begin() + d);
        b.contents_->raw.dimensions--;
        b.contents_->raw.dim = b.contents_->dims.data();
        Buffer<T, Dims == AnyDims ? AnyDims : Dims - 1> result;
        result.contents_ = std::move(b.contents_);
        return result;
    }
    /// sliced(d, pos) at dimension d's first coordinate.
    Buffer<T, Dims == AnyDims ? AnyDims : Dims - 1> sliced(int d) const {
        return sliced(d, dim(d).min());
    }
    /// Adds a dimension of extent 1 at position `d` (the later ones move up), whose only
    /// coordinate is `pos`: the same memory seen as one slice of a higher-dimensional buffer (a
    /// Buffer<T, N> gives a Buffer<T, N + 1>).
    Buffer<T, Dims == AnyDims ? AnyDims : Dims + 1> embedded(int d, int pos = 0) const {
        static_assert(Dims < 16, "Buffer<T, 16>: no room for another dimension");
        if (!defined()) detail::buffer_error("Buffer: use of an undefined buffer.");
        if (d < 0 || d > dimensions() || dimensions() >= 16) {
            detail::buffer_error("Buffer \"" + name() + "\" has " + std::to_string(dimensions()) +
                                 " dimensions; embedded(" + std::to_string(d) +
                                 ") needs a position from 0 to " + std::to_string(dimensions()) +
                                 " and at most 15 dimensions.");
        }
        Buffer b = view();
        int64_t span = 1;
        for (const dsl_dimension_t &dm : b.contents_->dims)
            span = std::max<int64_t>(span, int64_t(std::abs(dm.stride)) * dm.extent);
        b.contents_->dims.insert(b.contents_->dims.begin() + d,
                                 dsl_dimension_t{pos, 1, static_cast<int32_t>(span), 0});
        b.contents_->raw.dimensions++;
        b.contents_->raw.dim = b.contents_->dims.data();
        Buffer<T, Dims == AnyDims ? AnyDims : Dims + 1> result;
        result.contents_ = std::move(b.contents_);
        return result;
    }
    /// Restricts each dimension i to [ranges[i].first, ranges[i].first + ranges[i].second)
    /// (min and extent); the dimensions past the list keep their range.
    Buffer cropped(const std::vector<std::pair<int, int>> &ranges) const {
        Buffer b = *this;
        for (size_t d = 0; d < ranges.size(); d++)
            b = b.cropped(static_cast<int>(d), ranges[d].first, ranges[d].second);
        return b;
    }
    Buffer &crop(const std::vector<std::pair<int, int>> &ranges) { return *this = cropped(ranges); }
    /// In-place forms of the views above.
    Buffer &crop(int d, int min, int extent) { return *this = cropped(d, min, extent); }
    Buffer &translate(int d, int delta) { return *this = translated(d, delta); }
    /// Shifts the coordinates of dimension i by `delta[i]`, for each i.
    Buffer &translate(const std::vector<int> &delta) {
        for (size_t d = 0; d < delta.size(); d++)
            translate(static_cast<int>(d), delta[d]);
        return *this;
    }
    /// Moves the buffer's coordinates so that dimension i starts at `mins[i]`, for each i
    /// (the memory and the values stay; only where they are addressed changes).
    Buffer &set_min(const std::vector<int> &mins) {
        for (size_t d = 0; d < mins.size(); d++)
            translate(static_cast<int>(d), mins[d] - dim(static_cast<int>(d)).min());
        return *this;
    }
    template <typename... Ints, typename = std::enable_if_t<detail::all_integral<Ints...>()>>
    Buffer &set_min(int m0, Ints... rest) {
        return set_min(std::vector<int>{m0, static_cast<int>(rest)...});
    }
    Buffer &transpose(int d0, int d1) { return *this = transposed(d0, d1); }
    /// In place, only where the number of dimensions is not fixed (Buffer<T>).
    Buffer &slice(int d, int pos) {
        static_assert(Dims == AnyDims,
                      "Buffer<T, Dims>: slice() in place would change the "
                      "number of dimensions; use sliced()");
        return *this = sliced(d, pos);
    }
    Buffer &slice(int d) { return slice(d, dim(d).min()); }
    /// embedded() in place, only where the number of dimensions is not fixed (Buffer<T>).
    Buffer &embed(int d, int pos = 0) {
        static_assert(Dims == AnyDims,
                      "Buffer<T, Dims>: embed() in place would change the number of dimensions; "
                      "use embedded()");
        return *this = embedded(d, pos);
    }
    /// Reorders the dimensions: dimension i of the result is dimension order[i] of this one.
    Buffer transposed(const std::vector<int> &order) const {
        if (static_cast<int>(order.size()) != dimensions()) {
            detail::buffer_error("Buffer \"" + name() + "\": transpose of " +
                                 std::to_string(order.size()) + " dimensions, but it has " +
                                 std::to_string(dimensions()) + ".");
        }
        std::vector<bool> seen(order.size(), false);
        Buffer b = view();
        for (size_t i = 0; i < order.size(); i++) {
            check_dim(order[i]);
            if (seen[order[i]]) {
                detail::buffer_error("Buffer \"" + name() + "\": transpose names dimension " +
                                     std::to_string(order[i]) + " twice.");
            }
            seen[order[i]] = true;
            b.contents_->dims[i] = contents_->dims[order[i]];
        }
        return b;
    }
    Buffer &transpose(const std::vector<int> &order) { return *this = transposed(order); }
    /// The same buffer with no dimensions and no memory (Halide's reset()): the element type
    /// stays (uint8 for a Buffer<>).
    Buffer &reset() {
        static_assert(Dims == AnyDims || Dims == 0,
                      "Buffer<T, Dims>: reset() leaves no dimensions; use Buffer<T>");
        Type t = UInt(8);
        if constexpr (kTyped) t = type_of<T>();
        Buffer b;
        b.wrap(t, nullptr, {}, "");
        return *this = b;
    }
    /// The same buffer as a Buffer<U> (checks the element type where U is not void).
    template <typename U, int D = Dims>
    Buffer<U, D> as() const {
        return Buffer<U, D>(*this);
    }

    /// Gives a Buffer without memory (made from `nullptr`, or shaped by a bounds query) zeroed
    /// memory of its shape, with its strides; a Buffer with memory keeps it.
    void allocate() {
        if (!defined()) detail::buffer_error("Buffer: allocate() of an undefined buffer.");
        if (contents_->raw.host != nullptr) return;
        std::shared_ptr<uint8_t> memory;
        uint8_t *start = zeroed_memory(size_in_bytes(), memory);
        // The element at the mins is the lowest address unless a stride is negative.
        int64_t offset = 0;
        for (int i = 0; i < dimensions(); i++) {
            if (dim(i).stride() < 0) offset -= int64_t(dim(i).extent() - 1) * dim(i).stride();
        }
        contents_->raw.host = start + offset * type().bytes();
        contents_->allocation = std::move(memory);
    }
    /// Drops this Buffer's memory (freed when no other handle or view holds it); the shape
    /// stays, as for a Buffer made from `nullptr`.
    void deallocate() {
        if (!defined()) return;
        device_free();
        contents_->raw.host = nullptr;
        contents_->allocation.reset();
    }

    /// A dense copy with its own memory and the same mins (dimension 0 innermost); a copy of
    /// a Buffer<const T> may be written (a Buffer<T>).
    Buffer<std::remove_const_t<T>, Dims> copy() const {
        std::vector<int> order;
        for (int i = 0; i < dimensions(); i++)
            order.push_back(i);
        return copy_in_order(order);
    }
    /// A dense copy whose last dimension (the channels) is innermost in memory, as
    /// make_interleaved lays it out.
    Buffer<std::remove_const_t<T>, Dims> copy_to_interleaved() const {
        std::vector<int> order;
        if (dimensions() > 0) order.push_back(dimensions() - 1);
        for (int i = 0; i + 1 < dimensions(); i++)
            order.push_back(i);
        return copy_in_order(order);
    }
    /// A dense copy with dimension 0 innermost (the same as copy()).
    Buffer<std::remove_const_t<T>, Dims> copy_to_planar() const { return copy(); }

    /// Sets every element to `value` (converted to the element type: `Buffer<uint8_t>::fill(1)`
    /// writes bytes).
    template <typename U = T, typename = std::enable_if_t<!std::is_void_v<U>>>
    Buffer &fill(typename detail::NotDeduced<U>::type value) {
        for_each_position(
            [&](const int *pos) { *reinterpret_cast<U *>(byte_address(pos)) = value; });
        return *this;
    }

    /// Sets every element to `f(x, y, ...)` (or `f(const int *coords)`, or `f()`), as
    /// for_each_element calls it: `b.fill([](int x, int y) { return x + y; })`.
    template <typename F, typename U = T,
              typename = std::enable_if_t<!std::is_void_v<U> && !is_scalar_type_v<F>>>
    Buffer &fill(F f) {
        for_each_position([&](const int *pos) {
            *reinterpret_cast<U *>(byte_address(pos)) = static_cast<U>(detail::call_at(f, pos));
        });
        return *this;
    }

    /// Calls `f(value, others' values...)` once per element with references to it and to the
    /// elements at the same place of `others` (Buffers of the same extents, whose coordinates
    /// are taken relative to their mins): `out.for_each_value([](float &o, float i) { o = 2 *
    /// i; }, in)`. Elements go in this buffer's memory order (its smallest stride innermost).
    template <typename F, typename... Others, typename U = T,
              typename = std::enable_if_t<!std::is_void_v<U>>>
    const Buffer &for_each_value(F f, const Others &...others) const {
        (check_same_extents(others), ...);
        std::vector<int> order(static_cast<size_t>(dimensions()));
        for (int i = 0; i < dimensions(); i++)
            order[static_cast<size_t>(i)] = i;
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
            return std::abs(int64_t(dim(a).stride())) < std::abs(int64_t(dim(b).stride()));
        });
        for_each_position_in_order(order, [&](const int *pos) {
            f(*reinterpret_cast<U *>(byte_address(pos)), others.element_relative(pos, *this)...);
        });
        return *this;
    }
    template <typename F, typename... Others, typename U = T,
              typename = std::enable_if_t<!std::is_void_v<U>>>
    Buffer &for_each_value(F f, const Others &...others) {
        static_cast<const Buffer &>(*this).for_each_value(f, others...);
        return *this;
    }

    /// Whether every element equals `value`.
    template <typename U = T, typename = std::enable_if_t<!std::is_void_v<U>>>
    bool all_equal(typename detail::NotDeduced<U>::type value) const {
        bool all = true;
        for_each_value([&](const U &v) { all = all && v == value; });
        return all;
    }

    /// Copies the elements of `other` (same element type and dimensions) where its region
    /// overlaps this buffer's; the rest is left as it is.
    template <typename U>
    void copy_from(const Buffer<U> &other) {
        if (!defined() || !other.defined())
            detail::buffer_error("Buffer: copy of an undefined buffer.");
        if (other.type() != type() || other.dimensions() != dimensions()) {
            detail::buffer_error("Buffer \"" + name() +
                                 "\": copy_from a buffer of another type or "
                                 "number of dimensions (\"" +
                                 other.name() + "\").");
        }
        const int bytes = type().bytes();
        for_each_position([&](const int *pos) {
            for (int d = 0; d < dimensions(); d++) {
                if (pos[d] < other.dim(d).min() || pos[d] > other.dim(d).max()) return;
            }
            std::memcpy(byte_address(pos), other.byte_address(pos), static_cast<size_t>(bytes));
        });
    }

    /// Calls `f` once per element with its coordinates: `f(x)`, `f(x, y)`, ... (one int per
    /// dimension, up to 16), or `f(const int *coords)`. An `f` of fewer ints than there are
    /// dimensions is called once per point of the first ones, as in Halide (it walks the
    /// others itself: `im.for_each_element([&](int x, int y) { for (int c ...) })`).
    template <typename F>
    const Buffer &for_each_element(F f) const {
        int walked = dimensions();
        if constexpr (!std::is_invocable_v<F, const int *> && !std::is_invocable_v<F>) {
            walked = std::min(walked, static_cast<int>(detail::int_arity<F>()));
        }
        for_each_position([&](const int *p) { detail::call_at(f, p); }, walked);
        return *this;
    }

    // The device side (GPU targets). A buffer may have a copy in a GPU's memory; two flags say
    // which side holds newer data. Pipelines keep them right: they copy a buffer to the device
    // before a kernel reads it if the host is newer, and mark what kernels write device-dirty.
    // realize() copies its results back to the host, and releases the device copies it made,
    // except for buffers that had a device copy before it ran (copy_to_device): those keep
    // theirs, newer than the host where kernels wrote them, so that pipelines can pass them on
    // without copies. Call copy_to_host() before reading such a buffer on the host, and
    // set_host_dirty() after writing it there.

    /// Copies the device's data to the host if the device's is newer. Returns 0.
    int copy_to_host() {
        if (defined()) detail::buffer_copy_to_host(*contents_);
        return 0;
    }
    /// Gives the buffer a copy on the device of the target's GPU API (OpenCL if the target has
    /// it, else CUDA), holding the host's data. Returns 0.
    int copy_to_device(const Target &target = get_jit_target_from_environment()) {
        return copy_to_device(DeviceAPI::Default_GPU, target);
    }
    int copy_to_device(DeviceAPI api, const Target &target = get_jit_target_from_environment()) {
        if (!defined()) detail::buffer_error("Buffer: copy_to_device of an undefined buffer.");
        detail::buffer_copy_to_device(*contents_, api, target);
        return 0;
    }
    /// Releases the device copy without copying it back. Returns 0.
    int device_free() {
        if (defined()) detail::buffer_device_free(*contents_);
        return 0;
    }
    /// Waits for the work queued on the buffer's device to finish. Returns 0.
    int device_sync() {
        if (defined()) detail::buffer_device_sync(*contents_);
        return 0;
    }
    bool has_device_allocation() const { return defined() && contents_->raw.device != 0; }
    bool host_dirty() const {
        return defined() && (contents_->raw.flags & dsl_buffer_flag_host_dirty);
    }
    bool device_dirty() const {
        return defined() && (contents_->raw.flags & dsl_buffer_flag_device_dirty);
    }
    void set_host_dirty(bool dirty = true) { set_flag(dsl_buffer_flag_host_dirty, dirty); }
    void set_device_dirty(bool dirty = true) { set_flag(dsl_buffer_flag_device_dirty, dirty); }

    const std::shared_ptr<detail::BufferContents> &contents() const { return contents_; }
    bool same_as(const Buffer<> &o) const { return contents_ == o.contents(); }

    /// The address of the element at `pos` (one coordinate per dimension).
    uint8_t *byte_address(const int *pos) const {
        int64_t offset = 0;
        for (int i = 0; i < dimensions(); i++) {
            offset +=
                static_cast<int64_t>(pos[i] - contents_->dims[i].min) * contents_->dims[i].stride;
        }
        return contents_->raw.host + offset * type().bytes();
    }

  private:
    template <typename U, int D>
    friend class Buffer;

    static auto *cast_host(uint8_t *p) {
        if constexpr (kTyped) {
            return reinterpret_cast<T *>(p);
        } else {
            return static_cast<void *>(p);
        }
    }
    static void check_dimensions(int n, const std::string &name) {
        if (Dims != AnyDims && n != Dims) {
            detail::buffer_error("Buffer" + (name.empty() ? "" : " \"" + name + "\"") + " has " +
                                 std::to_string(n) + " dimensions, but this Buffer<T, " +
                                 std::to_string(Dims) + "> has " + std::to_string(Dims) +
                                 "; use Buffer<T> (any number) or give " + std::to_string(Dims) +
                                 " sizes.");
        }
    }

    static void check_type(Type t) {
        if constexpr (kTyped) {
            if (t != type_of<T>()) {
                detail::buffer_error("Buffer: the element type is " + t.to_string() +
                                     ", but this Buffer<" + type_of<T>().to_string() +
                                     "> expects " + type_of<T>().to_string() + ".");
            }
        }
    }
    static void check_extent(int extent, const std::string &name) {
        if (extent < 0) {
            detail::buffer_error("Buffer" + (name.empty() ? "" : " \"" + name + "\"") +
                                 ": the extent " + std::to_string(extent) +
                                 " is negative; extents are 0 or more.");
        }
    }
    void check_dim(int d) const {
        if (!defined()) detail::buffer_error("Buffer: use of an undefined buffer.");
        if (d < 0 || d >= dimensions()) {
            detail::buffer_error("Buffer \"" + name() + "\" has " + std::to_string(dimensions()) +
                                 " dimensions; there is no dimension " + std::to_string(d) + ".");
        }
    }

    auto *address_of(const int *coords, int n) const {
        // Coordinates past the last dimension may be given as 0 (a scalar read as b(0)).
        while (n > dimensions() && coords[n - 1] == 0)
            n--;
        if (n != dimensions()) {
            detail::buffer_error("Buffer \"" + name() + "\" has " + std::to_string(dimensions()) +
                                 " dimensions but was accessed with " + std::to_string(n) +
                                 " coordinates.");
        }
        return reinterpret_cast<T *>(byte_address(coords));
    }

    void allocate(Type t, const std::vector<dsl_dimension_t> &dims, size_t elements,
                  const std::string &name) {
        std::shared_ptr<uint8_t> memory;
        uint8_t *start = zeroed_memory(elements * t.bytes(), memory);
        wrap(t, start, dims, name);
        contents_->allocation = std::move(memory);
    }
    /// `bytes` zeroed bytes whose first is on a 64-byte boundary (a cache line, an AVX-512
    /// register: calloc aligns to 16 only, and a vector load or store that straddles two cache
    /// lines costs two); `owner` keeps them.
    static uint8_t *zeroed_memory(size_t bytes, std::shared_ptr<uint8_t> &owner) {
        owner.reset(static_cast<uint8_t *>(std::calloc(bytes + 64, 1)),
                    [](uint8_t *p) { std::free(p); });
        if (!owner)
            detail::buffer_error("Buffer: out of memory allocating " + std::to_string(bytes + 64) +
                                 " bytes.");
        const uintptr_t start = reinterpret_cast<uintptr_t>(owner.get());
        return owner.get() + (((start + 63) & ~static_cast<uintptr_t>(63)) - start);
    }

    void wrap(Type t, uint8_t *data, const std::vector<dsl_dimension_t> &dims,
              const std::string &name) {
        check_dimensions(static_cast<int>(dims.size()), name);
        contents_ = std::make_shared<detail::BufferContents>();
        contents_->dims = dims;
        contents_->name = name.empty() ? detail::fresh_buffer_name() : name;
        contents_->raw.host = data;
        contents_->raw.type = detail::to_raw_type(t);
        contents_->raw.dimensions = static_cast<int32_t>(dims.size());
        contents_->raw.dim = contents_->dims.data();
    }

    void set_flag(uint64_t flag, bool on) {
        if (!defined()) return;
        if (on) {
            contents_->raw.flags |= flag;
        } else {
            contents_->raw.flags &= ~flag;
        }
    }

    /// A new handle with its own dimensions but the same memory (for views). A view sees the
    /// host's memory: newer data on the device comes home first.
    Buffer view() const {
        if (contents_->raw.flags & dsl_buffer_flag_device_dirty)
            detail::buffer_copy_to_host(*contents_);
        Buffer b;
        b.contents_ = std::make_shared<detail::BufferContents>(*contents_);
        b.contents_->raw.dim = b.contents_->dims.data();
        return b;
    }

    /// A dense copy whose dimensions are laid out in memory from order[0] (innermost) on.
    Buffer<std::remove_const_t<T>, Dims> copy_in_order(const std::vector<int> &order) const {
        Buffer<std::remove_const_t<T>, Dims> b =
            dense_in_order(type(), contents_->dims, order, name());
        for_each_position([&](const int *pos) {
            std::memcpy(b.byte_address(pos), byte_address(pos), type().bytes());
        });
        return b;
    }

    /// A zero-filled buffer of element type `t` over the mins and extents of `shape` (its
    /// strides are ignored), dense, its dimensions laid out in memory from order[0]
    /// (innermost) on; a RuntimeError unless `order` names each dimension once.
    static Buffer<std::remove_const_t<T>, Dims> dense_in_order(
        Type t, const std::vector<dsl_dimension_t> &shape, const std::vector<int> &order,
        const std::string &name) {
        const int n = static_cast<int>(shape.size());
        auto refuse = [n] {
            detail::buffer_error("Buffer: a storage order names each of the " + std::to_string(n) +
                                 " dimensions once (dimension 0 first)");
        };
        if (order.size() != shape.size()) refuse();
        std::vector<dsl_dimension_t> dims = shape;
        std::vector<bool> seen(shape.size(), false);
        int64_t stride = 1;
        for (int d : order) {
            if (d < 0 || d >= n || seen[d]) refuse();
            seen[d] = true;
            dims[d].stride = static_cast<int32_t>(stride);
            stride *= dims[d].extent;
            if (stride > INT32_MAX)
                detail::buffer_error("Buffer: more than 2^31 - 1 elements, the most one holds.");
        }
        Buffer<std::remove_const_t<T>, Dims> b;
        b.allocate(t, dims, static_cast<size_t>(stride), name);
        return b;
    }
    /// Dimensions of extents `sizes` from 0 (a RuntimeError for a negative size).
    static std::vector<dsl_dimension_t> shape_of(const std::vector<int> &sizes,
                                                 const std::string &name) {
        std::vector<dsl_dimension_t> shape;
        for (int s : sizes) {
            check_extent(s, name);
            shape.push_back({0, s, 0, 0});
        }
        return shape;
    }

    /// The element at `pos` of buffer `origin`, moved to this buffer's coordinates (relative to
    /// the mins of each): for_each_value over several buffers.
    template <typename B, typename U = T, typename = std::enable_if_t<!std::is_void_v<U>>>
    U &element_relative(const int *pos, const B &origin) const {
        int here[16];
        for (int i = 0; i < dimensions(); i++)
            here[i] = pos[i] - origin.dim(i).min() + dim(i).min();
        return *reinterpret_cast<U *>(byte_address(here));
    }

    template <typename B>
    void check_same_extents(const B &other) const {
        bool same = other.defined() && other.dimensions() == dimensions();
        for (int i = 0; same && i < dimensions(); i++)
            same = other.dim(i).extent() == dim(i).extent();
        if (!same) {
            detail::buffer_error("Buffer \"" + name() +
                                 "\": for_each_value over buffers of other " + "extents (\"" +
                                 (other.defined() ? other.name() : "undefined") +
                                 "\"); every buffer needs this one's.");
        }
    }
    /// `f(coords)` over every point, dimension order[0] innermost.
    template <typename F>
    void for_each_position_in_order(const std::vector<int> &order, F f) const {
        std::vector<int> pos(std::max(dimensions(), 16), 0);
        for (int i = 0; i < dimensions(); i++) {
            if (dim(i).extent() <= 0) return;
            pos[i] = dim(i).min();
        }
        while (true) {
            f(pos.data());
            size_t k = 0;
            for (; k < order.size(); k++) {
                const int i = order[k];
                if (++pos[i] <= dim(i).max()) break;
                pos[i] = dim(i).min();
            }
            if (k == order.size()) return;
        }
    }

    /// `f(coords)` over every point of the first `n` dimensions (all by default), the others at
    /// their mins. Coordinates past the last dimension are 0 (up to 16 of them: a callable of
    /// more ints than dimensions reads those).
    template <typename F>
    void for_each_position(F f, int n = -1) const {
        if (n < 0) n = dimensions();
        std::vector<int> pos(std::max(dimensions(), 16), 0);
        for (int i = n; i < dimensions(); i++)
            pos[i] = dim(i).min();
        for (int i = 0; i < n; i++) {
            if (dim(i).extent() <= 0) return;
            pos[i] = dim(i).min();
        }
        while (true) {
            f(pos.data());
            int i = 0;
            for (; i < n; i++) {
                if (++pos[i] <= dim(i).max()) break;
                pos[i] = dim(i).min();
            }
            if (i == n) return;
        }
    }

    std::shared_ptr<detail::BufferContents> contents_;
};

/// Halide's runtime Buffer (Halide::Runtime::Buffer): in dsl the same class as Buffer, which
/// serves both the compiler and programs that only run compiled pipelines.
namespace Runtime {
template <typename T = void, int Dims = AnyDims>
using Buffer = ::dsl::Buffer<T, Dims>;
using ::dsl::AnyDims;
}  // namespace Runtime

}  // namespace dsl
