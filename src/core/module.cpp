#include "cudakit/module.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "core/array_view_match.hpp"
#include "cudakit/error.hpp"
#include "cudakit/kernel.hpp"
#include "kernel_state.hpp"
#include "module_file.hpp"
#include "module_state.hpp"

namespace cudakit {
namespace {

std::string without_spaces(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != ' ' && c != '\t') out += c;
  return out;
}

void* as_pointer(std::uint64_t address) {
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(address));
}

const std::vector<std::string>& symbols_of(Module::State& s) {
  if (!s.symbols) s.symbols = s.backend->kernel_symbols(s.native);
  return *s.symbols;
}

const std::vector<detail::KernelSignature>& signatures_of(Module::State& s) {
  if (!s.signatures) s.signatures = detail::scan_kernel_signatures(s.source);
  return *s.signatures;
}

std::string kernel_list(const std::vector<std::string>& symbols) {
  if (symbols.empty()) return "the module has no kernels";
  std::string out = "kernels in the module: ";
  for (std::size_t i = 0; i < symbols.size(); ++i) {
    if (i) out += ", ";
    out += detail::demangle(symbols[i]);
  }
  return out;
}

// Finds the symbol a user's name refers to, in the order the header documents.
std::string resolve_symbol(Module::State& s, std::string_view name) {
  const auto& symbols = symbols_of(s);
  for (const auto& sym : symbols)
    if (sym == name) return sym;
  const std::string bare = without_spaces(name);
  for (const auto& [expression, lowered] : s.code.lowered_names)
    if (expression == name || without_spaces(expression) == bare) return lowered;

  // C++ linkage: the name with its template arguments ("vec_add<float>"), then
  // the plain function name ("vec_add"), when exactly one kernel matches.
  std::vector<std::string> exact, plain;
  for (const auto& sym : symbols) {
    if (!sym.starts_with("_Z")) continue;
    std::string demangled = detail::demangle(sym);
    std::string qualified = detail::demangled_without_params(demangled);
    if (without_spaces(qualified) == bare || without_spaces(demangled) == bare)
      exact.push_back(sym);
    std::string base = detail::demangled_base_name(demangled);
    std::string scoped = qualified.substr(0, qualified.find('<'));
    if (base == bare || without_spaces(scoped) == bare) plain.push_back(sym);
  }
  if (exact.size() == 1) return exact.front();
  if (exact.empty() && plain.size() == 1) return plain.front();

  const std::string context =
      "looking up kernel '" + std::string(name) + "' in a module on " + s.device.describe();
  const auto& candidates = exact.size() > 1 ? exact : plain;
  if (candidates.size() > 1) {
    std::string list;
    for (const auto& sym : candidates) list += "\n    " + detail::demangle(sym);
    throw ArgumentError(context,
                        "the name is ambiguous; it matches " + std::to_string(candidates.size()) +
                            " kernels:" + list,
                        "ask for one by its name expression, e.g. \"" +
                            detail::demangled_without_params(detail::demangle(candidates.front())) +
                            "\"");
  }
  std::string hint =
      "use one of the names listed; C++ kernels (templates, or no_extern_c) can be asked for "
      "by their plain name or by a name expression";
  for (const auto& sig : signatures_of(s))
    if (sig.name == bare && sig.is_template)
      hint = "'" + sig.name + "' is a template, and only instantiations are compiled: add e.g. \"" +
             sig.name + "<float>\" to CompileOptions::name_expressions and ask for that name";
  throw ArgumentError(context, "no such kernel; " + kernel_list(symbols), hint);
}

// Names and C types for the parameters, from the demangled symbol (C++
// linkage: exact types even for templates) and from the source (names, and
// the types of extern "C" kernels).
void refine_layout(Module::State& s, const std::string& symbol, ParamLayout& layout) {
  auto& params = layout.params;
  std::vector<std::string> types;
  std::vector<std::string> names;
  std::string base = symbol;
  if (symbol.starts_with("_Z")) {
    std::string demangled = detail::demangle(symbol);
    if (auto t = detail::demangled_param_types(demangled); t && t->size() == params.size())
      types = std::move(*t);
    base = detail::demangled_base_name(demangled);
  }
  for (const auto& sig : signatures_of(s)) {
    if (sig.name != base || sig.params.size() != params.size()) continue;
    for (const auto& p : sig.params) names.push_back(p.name);
    if (types.empty())
      for (const auto& p : sig.params) types.push_back(p.type);
    break;
  }
  for (std::size_t i = 0; i < params.size(); ++i) {
    Param& p = params[i];
    if (i < names.size() && p.name.empty()) p.name = names[i];
    if (i >= types.size() || types[i].empty()) continue;
    p.type = types[i];
    auto tc = detail::classify_param_type(types[i]);
    if (!tc.known) continue;
    if (p.size != 0 && tc.size != p.size) continue;  // the compiled code knows better
    p.kind = tc.kind;
    p.scalar = tc.scalar;
    if (p.size == 0) p.size = tc.size;
    if (p.align <= 1) p.align = tc.size;
  }
}

std::shared_ptr<Kernel::State> make_kernel_state(const Module& module, Module::State& s,
                                                 std::string name, std::string symbol) {
  auto k = std::make_shared<Kernel::State>(module);
  k->backend = s.backend;
  k->name = std::move(name);
  k->native = s.backend->get_kernel(s.native, symbol);
  k->params = s.backend->param_layout(s.native, symbol);
  refine_layout(s, symbol, k->params);
  k->view_dtypes.reserve(k->params.params.size());
  for (const Param& p : k->params.params)
    k->view_dtypes.push_back(p.kind == ParamKind::aggregate ? detail::array_view_param_dtype(p.type)
                                                            : std::string());
  k->fitting_view_types = std::make_unique<std::atomic<const char*>[]>(k->params.params.size());
  k->symbol = std::move(symbol);

  const auto& props = s.device.properties();
  KernelAttributes attrs = s.backend->kernel_attributes(k->native);
  k->max_threads_per_block = static_cast<unsigned>(std::max(props.max_threads_per_block, 0));
  k->kernel_max_threads_per_block = static_cast<unsigned>(std::max(attrs.max_threads_per_block, 0));
  k->max_block_dim = props.max_block_dim;
  k->max_grid_dim = props.max_grid_dim;
  k->static_shared_bytes = attrs.static_shared_bytes;
  k->shared_per_block = props.shared_memory_per_block;
  k->shared_per_block_optin = props.shared_memory_per_block_optin;
  return k;
}

}  // namespace

Module::Module(std::shared_ptr<State> state) : state_(std::move(state)) {}

Module detail::ModuleAccess::load_with_source(const CompiledCode& code, const Device& device,
                                              std::string source) {
  auto& backend = detail::backend_of(device);
  auto state = std::make_shared<Module::State>(device, &backend);
  state->code = code;
  state->source = std::move(source);
  state->native = backend.load_module(device.ordinal(), state->code);
  return Module(std::move(state));
}

Module Module::load(const CompiledCode& code, const Device& device) {
  return detail::ModuleAccess::load_with_source(code, device, {});
}

Module Module::load(const CompiledCode& code, const Device& device, std::string source) {
  return detail::ModuleAccess::load_with_source(code, device, std::move(source));
}

Module Module::load(const CompiledCode& code) { return load(code, Device::current()); }

Module Module::load_file(const std::filesystem::path& path, const Device& device) {
  return load(detail::read_module_file(path), device);
}

Module Module::load_file(const std::filesystem::path& path) {
  return load_file(path, Device::current());
}

Module Module::load_image(std::span<const std::uint8_t> image, const Device& device) {
  return load(detail::code_from_image(image), device);
}

const Device& Module::device() const { return state_->device; }
const CompiledCode& Module::code() const { return state_->code; }
const std::string& Module::log() const { return state_->code.log; }
const std::string& Module::source() const { return state_->source; }
void* Module::native() const { return state_->native; }

Kernel Module::kernel(std::string_view name) const {
  State& s = *state_;
  std::lock_guard lock(s.mutex);
  std::string key(name);
  if (auto it = s.kernels.find(key); it != s.kernels.end())
    if (auto alive = it->second.lock()) return detail::KernelAccess::make(std::move(alive));
  std::string symbol = resolve_symbol(s, name);
  auto k = make_kernel_state(*this, s, key, std::move(symbol));
  s.kernels[std::move(key)] = k;
  return detail::KernelAccess::make(std::move(k));
}

std::vector<std::string> Module::kernel_names() const {
  State& s = *state_;
  std::lock_guard lock(s.mutex);
  std::vector<std::string> out;
  for (const auto& sym : symbols_of(s)) out.push_back(detail::demangle(sym));
  return out;
}

GlobalVariable Module::get_global(std::string_view name) const {
  auto [address, bytes] = state_->backend->get_global(state_->native, std::string(name));
  return GlobalVariable{state_->device, address, bytes};
}

void GlobalVariable::copy_from_host(const void* src, std::size_t n) const {
  if (n > bytes)
    throw ArgumentError(
        "copying to a module global",
        std::to_string(n) + " bytes do not fit in the variable's " + std::to_string(bytes));
  if (n) detail::backend_of(device).copy(as_pointer(address), src, n, nullptr, false);
}

void GlobalVariable::copy_to_host(void* dst, std::size_t n) const {
  if (n > bytes)
    throw ArgumentError(
        "copying from a module global",
        std::to_string(n) + " bytes exceed the variable's " + std::to_string(bytes));
  if (n) detail::backend_of(device).copy(dst, as_pointer(address), n, nullptr, false);
}

}  // namespace cudakit
