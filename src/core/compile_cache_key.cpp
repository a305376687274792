// CompileCache::key and the include resolution it relies on.
#include "core/compile_cache_key.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <unordered_set>
#include <vector>

#include "core/regular_file.hpp"
#include "cudakit/compile_cache.hpp"

namespace cudakit::detail {
namespace {

constexpr int max_include_depth = 64;
// A header bigger than this is not a header; reading it would only slow the key down.
constexpr std::size_t max_header_bytes = std::size_t(64) << 20;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r'; }

// Reads a whole regular file; false when it does not exist or is not a
// regular file (a directory named like the header, say).
bool read_file(const std::string& path, std::string& out) {
  // Not a blocking open: a named pipe named like a header must not hang.
  const auto file = open_regular_file(path);
  if (!file) return false;
  if (static_cast<std::size_t>(file->status.st_size) > max_header_bytes) {
    ::close(file->fd);
    return false;
  }
  const std::vector<char> bytes = read_all(*file);  // a file that shrank: hash what is there
  ::close(file->fd);
  out.assign(bytes.begin(), bytes.end());
  return true;
}

std::string join_path(std::string_view dir, std::string_view name) {
  std::string path(dir);
  if (!path.empty() && path.back() != '/') path += '/';
  path += name;
  return path;
}

std::string_view parent_dir(std::string_view path) {
  auto slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string_view(".") : path.substr(0, slash);
}

struct Resolver {
  const CompileOptions& options;
  std::vector<std::string> dirs;
  std::unordered_set<std::string> visited;
  std::vector<ResolvedHeader> out;

  // `from_dir` is the directory of the including file, empty when the
  // includer is the source itself or an in-memory header.
  void visit(std::string_view text, std::string_view from_dir, int depth) {
    if (depth > max_include_depth) return;
    for (const auto& inc : scan_includes(text)) resolve(inc, from_dir, depth);
  }

  void resolve(const IncludeDirective& inc, std::string_view from_dir, int depth) {
    for (const auto& [name, content] : options.headers) {
      if (name != inc.name) continue;
      std::string id = "mem:" + name;
      if (!visited.insert(id).second) return;
      out.push_back({std::move(id), content});
      visit(content, {}, depth + 1);
      return;
    }
    std::string content;
    auto try_path = [&](std::string path) {
      if (visited.count(path)) return true;  // found before: hashed already
      if (!read_file(path, content)) return false;
      visited.insert(path);
      out.push_back({path, content});
      visit(content, parent_dir(path), depth + 1);
      return true;
    };
    if (inc.quoted && !from_dir.empty() && inc.name.front() != '/' &&
        try_path(join_path(from_dir, inc.name)))
      return;
    if (!inc.name.empty() && inc.name.front() == '/') {
      if (try_path(inc.name)) return;
    } else {
      for (const auto& dir : dirs)
        if (try_path(join_path(dir, inc.name))) return;
    }
    std::string id = "missing:" + inc.name;
    if (visited.insert(id).second) out.push_back({std::move(id), {}});
  }
};

// Feeds one field into the hash as tag, length, bytes, so that no two
// different sets of fields can produce the same byte stream.
void feed(XXH3_state_t* state, char tag, std::string_view bytes) {
  const std::uint64_t size = bytes.size();
  XXH3_128bits_update(state, &tag, 1);
  XXH3_128bits_update(state, &size, sizeof size);
  XXH3_128bits_update(state, bytes.data(), bytes.size());
}

void feed_flag(XXH3_state_t* state, char tag, bool value) {
  feed(state, tag, value ? std::string_view("1") : std::string_view("0"));
}

}  // namespace

std::vector<IncludeDirective> scan_includes(std::string_view src) {
  std::vector<IncludeDirective> found;
  const std::size_t n = src.size();
  // A UTF-8 byte order mark (editors on Windows write one) is not text.
  std::size_t i = src.starts_with("\xEF\xBB\xBF") ? 3 : 0;
  bool line_start = true;  // only blanks (and comments) since the last newline
  while (i < n) {
    const char c = src[i];
    if (c == '\n') {
      line_start = true;
      ++i;
    } else if (is_space(c)) {
      ++i;
    } else if (c == '/' && i + 1 < n && src[i + 1] == '/') {
      while (i < n && src[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < n && src[i + 1] == '*') {
      auto end = src.find("*/", i + 2);
      i = end == std::string_view::npos ? n : end + 2;
    } else if (c == '"' || c == '\'') {
      // Skip literals so that "// " or "/*" inside them is not a comment.
      ++i;
      while (i < n && src[i] != c && src[i] != '\n') i += (src[i] == '\\') ? 2 : 1;
      ++i;
      line_start = false;
    } else if (c == '#' && line_start) {
      ++i;
      while (i < n && is_space(src[i])) ++i;
      constexpr std::string_view directive = "include";
      if (src.substr(i, directive.size()) == directive) {
        std::size_t j = i + directive.size();
        // "#include_next" and "#includes" are other words.
        const bool word_ends =
            j >= n || !(std::isalnum(static_cast<unsigned char>(src[j])) || src[j] == '_');
        while (j < n && is_space(src[j])) ++j;
        if (word_ends && j < n && (src[j] == '"' || src[j] == '<')) {
          const char close = src[j] == '"' ? '"' : '>';
          auto end = src.find(close, j + 1);
          auto eol = src.find('\n', j + 1);
          if (end != std::string_view::npos && end < eol && end > j + 1)
            found.push_back({std::string(src.substr(j + 1, end - j - 1)), close == '"'});
        }
      }
      // The rest of a directive line holds no other directive.
      while (i < n && src[i] != '\n') {
        if (src[i] == '/' && i + 1 < n && src[i + 1] == '*') break;  // comment handled above
        ++i;
      }
      line_start = false;
    } else {
      line_start = false;
      ++i;
    }
  }
  return found;
}

std::vector<std::string> include_search_dirs(const CompileOptions& options) {
  std::vector<std::string> dirs = options.include_dirs;
  const auto& flags = options.extra_flags;
  for (std::size_t k = 0; k < flags.size(); ++k) {
    std::string_view f = flags[k];
    constexpr std::string_view long_eq = "--include-path=";
    if (f == "-I" || f == "--include-path") {
      if (k + 1 < flags.size()) dirs.push_back(flags[++k]);
    } else if (f.starts_with(long_eq)) {
      dirs.emplace_back(f.substr(long_eq.size()));
    } else if (f.starts_with("-I")) {
      dirs.emplace_back(f.substr(2));
    }
  }
  return dirs;
}

std::vector<ResolvedHeader> resolve_includes(std::string_view source,
                                             const CompileOptions& options) {
  Resolver r{options, include_search_dirs(options), {}, {}};
  r.visit(source, {}, 0);
  return std::move(r.out);
}

}  // namespace cudakit::detail

namespace cudakit {

std::string CompileCache::key(std::string_view prepared_source, const CompileOptions& options,
                              std::string_view compiler_identity) {
  using detail::feed;
  using detail::feed_flag;
  XXH3_state_t state;
  XXH3_128bits_reset(&state);
  const std::string schema = std::to_string(schema_version);
  feed(&state, 'V', schema);
  feed(&state, 'C', compiler_identity);
  feed(&state, 'S', prepared_source);
  feed(&state, 'a', options.arch);
  feed(&state, 's', options.std);
  for (const auto& [name, value] : options.defines) {
    feed(&state, 'D', name);
    feed(&state, '=', value);
  }
  for (const auto& dir : options.include_dirs) feed(&state, 'I', dir);
  // In-memory headers count even when nothing includes them: the compiler
  // is given them all, and a -include in extra_flags may pull one in.
  for (const auto& [name, content] : options.headers) {
    feed(&state, 'H', name);
    feed(&state, 'h', content);
  }
  for (const auto& flag : options.extra_flags) feed(&state, 'F', flag);
  feed_flag(&state, 'g', options.debug);
  feed_flag(&state, 'l', options.line_info);
  feed_flag(&state, 'f', options.fast_math);
  feed_flag(&state, 'x', options.no_extern_c);
  for (const auto& expr : options.name_expressions) feed(&state, 'N', expr);
  feed_flag(&state, 'p', options.ptx_only);
  feed_flag(&state, 'L', options.lto_ir);
  // The name is in the debug information; unnamed sources keep their keys.
  if (!options.source_name.empty()) feed(&state, 'n', options.source_name);
  // Headers on disk: the content, so that editing one recompiles.
  for (const auto& header : detail::resolve_includes(prepared_source, options)) {
    feed(&state, 'R', header.id);
    feed(&state, 'r', header.content);
  }
  const XXH128_hash_t h = XXH3_128bits_digest(&state);
  char hex[33];
  std::snprintf(hex, sizeof hex, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  return std::string(hex, 32);
}

}  // namespace cudakit
