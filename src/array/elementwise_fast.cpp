// The cached fast path of evaluating an expression into an array. Most calls
// are the common shape: every array operand C-contiguous with the
// destination's shape, the rest scalars. For those, the kernel, the order of
// its parameters and its launch shape are functions of a short key (the
// tree's ops and dtypes, which operands are the same view, each address's
// alignment, the index width), so a call that has been seen before walks the
// tree once, looks the key up and launches: no plan, no key strings, no
// argument vectors. The first call of a key goes through the general path's
// plan, kernel and checked launch, and records what the later calls reuse.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "array/array_util.hpp"
#include "array/elementwise_eval.hpp"
#include "cudakit/detail/expr_node.hpp"
#include "cudakit/kernel.hpp"

namespace cudakit::detail {
namespace {

constexpr std::size_t kMaxNodes = 64;
constexpr std::size_t kMaxLeaves = 16;
// Out, the leaves, the scalars and n fit KernelArgs' inline capacity.
constexpr std::size_t kMaxScalars = KernelArgs::inline_capacity - 2 - kMaxLeaves;
// Below this many elements the general path decides alone (vector width,
// empty arrays); the fast path is for calls where the host time matters.
constexpr std::int64_t kMinSize = 16;

// What a hit reuses.
struct FastEntry {
  explicit FastEntry(Kernel k) : kernel(std::move(k)) {}
  Kernel kernel;
  std::vector<std::uint8_t> input_leaf;   // kernel input k reads walk leaf input_leaf[k]
  std::vector<std::uint8_t> scalar_slot;  // kernel scalar k is walk scalar scalar_slot[k]
  std::vector<DType> scalar_dtype;        // ... passed as this (compute) dtype
  bool index64 = false;
  int vector_width = 1;
  unsigned block = 256;
  std::int64_t grid_limit = 1;
  std::string label;  // the expression, for profiles and NVTX ranges
};

// A key of up to a few hundred bytes, built without allocating.
class KeyBytes {
 public:
  bool put(std::uint8_t byte) {
    if (size_ == sizeof bytes_) return false;
    bytes_[size_++] = static_cast<char>(byte);
    return true;
  }
  bool append(const std::string& text) {
    if (text.size() > 255 || size_ + 1 + text.size() > sizeof bytes_) return false;
    bytes_[size_++] = static_cast<char>(text.size());
    std::memcpy(bytes_ + size_, text.data(), text.size());
    size_ += text.size();
    return true;
  }
  std::string_view view() const noexcept { return {bytes_, size_}; }
  void truncate(std::size_t size) noexcept { size_ = std::min(size, size_); }

 private:
  char bytes_[512];
  std::size_t size_ = 0;
};

// The tree as the fast path sees it: its key, and its operands in walk order.
struct Walk {
  KeyBytes key;
  std::array<const Array*, kMaxLeaves> leaves{};
  std::size_t leaf_count = 0;
  std::array<const ExprNode*, kMaxScalars> scalars{};
  std::size_t scalar_count = 0;
  std::size_t nodes = 0;
  std::vector<const ExprNode*>* leaf_nodes = nullptr;  // filled on a miss only
};

bool same_view(const Array& a, const Array& b) {
  return a.storage() == b.storage() && a.dtype() == b.dtype() && a.offset() == b.offset() &&
         a.shape() == b.shape() && a.strides() == b.strides();
}

// Pooled memory is used on the stream it was allocated for (no record_stream needed).
bool on_own_stream(const Array& a) {
  const ArrayStorage& storage = *a.storage();
  return !storage.pooled || storage.alloc_stream == a.stream_ref().native;
}

// Appends `n` and its subtree to the walk; false when the tree is not of the
// common shape (the general path then handles it, errors included).
bool visit(const ExprNode& n, const Array& out, Walk& w) {
  if (++w.nodes > kMaxNodes) return false;
  KeyBytes& key = w.key;
  if (!key.put(static_cast<std::uint8_t>(n.kind)) || !key.put(static_cast<std::uint8_t>(n.dtype)) ||
      !key.put(n.weak ? 1 : 0))
    return false;
  if (n.kind == NodeKind::array) {
    const Array& a = n.array;
    if (!a.valid() || !(a.storage()->device == out.storage()->device) || a.shape() != out.shape() ||
        !a.is_c_contiguous())
      return false;
    // An operand on another stream, or pooled memory allocated for another
    // stream, needs ordering (stream_order.hpp): the general path's job.
    if (a.stream_ref().native != out.stream_ref().native || !on_own_stream(a)) return false;
    // An operand overlapping the destination is fine only as the very same
    // elements (a += b); anything else needs the general path's temporary.
    // (Both are contiguous and of one shape: their bytes are two ranges.)
    const std::uint64_t address = a.address();
    const std::uint64_t out_address = out.address();
    const bool overlap = address < out_address + out.nbytes() && out_address < address + a.nbytes();
    if (overlap && (address != out_address || a.itemsize() != out.itemsize())) return false;
    std::size_t same = w.leaf_count;
    for (std::size_t k = 0; k < w.leaf_count; ++k)
      if (same_view(*w.leaves[k], a)) {
        same = k;
        break;
      }
    if (w.leaf_count == kMaxLeaves) return false;
    if (!key.put(static_cast<std::uint8_t>(same)) ||
        !key.put(static_cast<std::uint8_t>(address & 15)))
      return false;
    if (w.leaf_nodes) w.leaf_nodes->push_back(&n);
    w.leaves[w.leaf_count++] = &a;
    return true;
  }
  if (n.kind == NodeKind::scalar) {
    std::size_t slot = w.scalar_count;
    for (std::size_t k = 0; k < w.scalar_count; ++k)
      if (w.scalars[k] == &n) slot = k;
    if (slot == w.scalar_count) {
      if (w.scalar_count == kMaxScalars) return false;
      w.scalars[w.scalar_count++] = &n;
    }
    return key.put(static_cast<std::uint8_t>(slot));
  }
  if (!key.put(static_cast<std::uint8_t>(n.operand)) || !key.append(n.op) ||
      !key.put(static_cast<std::uint8_t>(n.children.size())))
    return false;
  for (const auto& c : n.children)
    if (!visit(*c, out, w)) return false;
  return true;
}

bool index64_for(std::int64_t size) {
  // As make_plan decides for a contiguous 1-D plan (headroom of the
  // grid-stride loop included).
  const std::int64_t limit = (std::int64_t{1} << 31) - 1;
  return size >= limit - (std::int64_t{1} << 26);
}

std::atomic<std::uint64_t> g_hits{0};

// Looked up by string_view: a hit builds no std::string.
struct KeyHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view key) const noexcept {
    return std::hash<std::string_view>{}(key);
  }
};
struct Cache {
  std::mutex mutex;
  std::unordered_map<std::string, std::unique_ptr<const FastEntry>, KeyHash, std::equal_to<>>
      entries;
};
Cache& cache() {
  static Cache c;
  return c;
}

const FastEntry* find(std::string_view key) {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  auto it = c.entries.find(key);
  return it == c.entries.end() ? nullptr : it->second.get();
}

// The first call of a key: the general path's checks, plan and kernel, a
// checked launch, then the entry later calls reuse.
void fill(const Expr& expr, Array& out, Casting casting, const char* context, Walk& w) {
  check_eval(expr, out, casting, context);
  Expr e = expr.dtype() == out.dtype() ? expr : expr.astype(out.dtype());
  ElementwiseLaunch l = elementwise_launch_for(e, out);
  const LaunchConfig config = launch_elementwise(l, out);

  // A shape the entry cannot describe stays on the general path.
  if (l.plan.index64 != index64_for(l.plan.size) || l.plan.out->access != Access::contiguous ||
      l.plan.strided_rows != 0)
    return;
  auto entry = std::make_unique<FastEntry>(*l.kernel);
  for (const PlanOperand& in : l.plan.inputs) {
    if (in.access != Access::contiguous) return;
    std::size_t leaf = 0;
    while (leaf < w.leaf_nodes->size() &&
           l.plan.input_of.at((*w.leaf_nodes)[leaf]) != static_cast<int>(entry->input_leaf.size()))
      ++leaf;
    if (leaf == w.leaf_nodes->size()) return;
    entry->input_leaf.push_back(static_cast<std::uint8_t>(leaf));
  }
  for (const ExprNode* s : l.plan.scalars) {
    auto slot = std::find(w.scalars.begin(), w.scalars.begin() + w.scalar_count, s);
    if (slot == w.scalars.begin() + w.scalar_count) return;
    entry->scalar_slot.push_back(static_cast<std::uint8_t>(slot - w.scalars.begin()));
    entry->scalar_dtype.push_back(compute_dtype(s->dtype));
  }
  entry->label = l.label;
  entry->index64 = l.plan.index64;
  entry->vector_width = l.plan.vector_width;
  entry->block = config.block.x;
  entry->grid_limit = elementwise_config(out.device(), std::int64_t{1} << 40, StreamRef{}).grid.x;
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.entries.emplace(std::string(w.key.view()), std::move(entry));
}

void launch(const FastEntry& entry, const Walk& w, const Array& out) {
  // Out, inputs, scalars, n: at most 2 + kMaxLeaves + kMaxScalars arguments,
  // within KernelArgs' inline capacity (nothing allocated), through the one
  // checked launch.
  static_assert(2 + kMaxLeaves + kMaxScalars <= KernelArgs::inline_capacity);
  KernelArgs args;
  args.pointer(out.address(), "Array");
  for (std::uint8_t leaf : entry.input_leaf) args.pointer(w.leaves[leaf]->address(), "Array");
  for (std::size_t k = 0; k < entry.scalar_slot.size(); ++k) {
    const DType dtype = entry.scalar_dtype[k];
    alignas(16) unsigned char bytes[16] = {};
    w.scalars[entry.scalar_slot[k]]->scalar.store(dtype, bytes);
    if (is_complex(dtype))
      args.aggregate(bytes, itemsize(dtype), "struct");
    else
      args.scalar(scalar_type_of(dtype), bytes);
  }
  const std::int64_t size = out.size();
  if (entry.index64)
    args.scalar(static_cast<long long>(size));
  else
    args.scalar(static_cast<int>(size));
  const std::int64_t work = entry.vector_width > 1 ? size / entry.vector_width : size;
  const std::int64_t blocks =
      std::clamp<std::int64_t>((work + entry.block - 1) / entry.block, 1, entry.grid_limit);
  LaunchConfig config{Dim3{static_cast<unsigned>(blocks)}, Dim3{entry.block}, 0, out.stream_ref()};
  config.label = entry.label.c_str();
  config.bytes_moved = out.nbytes();
  for (std::uint8_t leaf : entry.input_leaf) config.bytes_moved += w.leaves[leaf]->nbytes();
  entry.kernel.launch(config, args);
  note_array_launch();
}

}  // namespace

std::uint64_t elementwise_fast_hits() noexcept { return g_hits.load(std::memory_order_relaxed); }

bool eval_fast(const Expr& expr, Array& out, Casting casting, const char* context) {
  if (!out.valid() || out.readonly() || out.size() < kMinSize || !out.is_c_contiguous() ||
      !on_own_stream(out))
    return false;
  const ExprNode& root = *expr.node();
  if (root.kind != NodeKind::op) return false;
  Walk w;
  const Device& device = out.storage()->device;
  w.key.put(static_cast<std::uint8_t>(device.backend_kind()));
  w.key.put(static_cast<std::uint8_t>(device.ordinal()));
  w.key.put(static_cast<std::uint8_t>(out.dtype()));
  w.key.put(static_cast<std::uint8_t>(out.address() & 15));
  w.key.put(static_cast<std::uint8_t>(casting));
  w.key.put(index64_for(out.size()) ? 1 : 0);
  const std::size_t header = w.key.view().size();
  if (!visit(root, out, w)) return false;
  if (const FastEntry* entry = find(w.key.view())) {
    launch(*entry, w, out);
    g_hits.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  // A miss: walk again remembering the leaves' nodes, which the plan names.
  std::vector<const ExprNode*> leaf_nodes;
  Walk again;
  again.leaf_nodes = &leaf_nodes;
  again.key = w.key;
  again.key.truncate(header);
  visit(root, out, again);
  fill(expr, out, casting, context, again);
  return true;
}

}  // namespace cudakit::detail
