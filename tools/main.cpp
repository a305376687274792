// `cudakit`: diagnose a machine (doctor), describe its devices (info),
// compile kernels offline (compile), run the tutorials' workloads (demo) and
// measure launch and compile overheads (bench).
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <limits>
#include <string>

#include "commands/commands.hpp"
#include "commands/profile_command.hpp"
#include "cudakit/error.hpp"
#include "cudakit/version.hpp"
#include "debug/debug_commands.hpp"

int main(int argc, char** argv) {
  namespace cli = cudakit::cli;
  CLI::App app{"cudakit: run-time compiled CUDA kernels, on a GPU or on the CPU backend"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Every subcommand's options");
  app.set_version_flag("--version", std::string("cudakit ") + cudakit::version_string,
                       "Print cudakit's version and exit");

  cli::DoctorOptions doctor;
  auto* doctor_cmd = app.add_subcommand(
      "doctor",
      "Check the driver, NVRTC, devices, cache and backend; say the fix for each problem");
  doctor_cmd->add_flag("--cpu-ok", doctor.cpu_ok,
                       "Exit 0 when the GPU path is unusable but the CPU backend works");

  auto* info_cmd = app.add_subcommand("info", "Backend, devices, every attribute, memory, NVRTC");

  cli::CompileCommandOptions compile;
  auto* compile_cmd =
      app.add_subcommand("compile", "Compile a .cu file with NVRTC (no GPU needed)");
  compile_cmd->add_option("FILE", compile.file, "CUDA C source file")->required();
  compile_cmd->add_option("--arch", compile.arch,
                          "sm_90, compute_90, or cpu (default: the device's arch, else sm_90)");
  auto* ptx_flag = compile_cmd->add_flag("--ptx", compile.ptx, "Emit PTX");
  auto* cubin_flag = compile_cmd->add_flag("--cubin", compile.cubin, "Emit a cubin (the default)");
  ptx_flag->excludes(cubin_flag);
  compile_cmd->add_option("-o,--output", compile.output,
                          "Write the compiled code here ('-': stdout)");
  compile_cmd->add_flag("--resource-usage", compile.resource_usage,
                        "Registers, shared and local memory per kernel");
  compile_cmd->add_flag("--show-source", compile.show_source,
                        "Print the source as compiled (after extern \"C\" wrapping), numbered");
  compile_cmd->add_option("-D,--define", compile.defines, "NAME=VALUE or NAME")
      ->allow_extra_args(false);
  compile_cmd->add_option("-I,--include-dir", compile.include_dirs, "Include directory")
      ->allow_extra_args(false);
  compile_cmd->add_option("--std", compile.std, "Language standard")->capture_default_str();
  compile_cmd->add_flag("--no-extern-c", compile.no_extern_c,
                        "Do not wrap the source in extern \"C\" (templates, C++ linkage)");
  compile_cmd
      ->add_option("--name-expression", compile.name_expressions,
                   "Template instantiation to compile, e.g. 'vec_add<float>' (repeatable)")
      ->allow_extra_args(false);

  cli::DemoOptions demo;
  auto* demo_cmd = app.add_subcommand(
      "demo", "The tutorials' workloads, checked against a CPU reference and timed");
  demo_cmd->add_option("--size", demo.size, "auto, tiny, small or full")
      ->check(CLI::IsMember({"auto", "tiny", "small", "full"}))
      ->capture_default_str();
  demo_cmd->add_option("--repeats", demo.repeats, "Timed repeats per workload (0: automatic)")
      ->check(CLI::Range(0, std::numeric_limits<int>::max()));

  cli::BenchOptions bench;
  auto* bench_cmd = app.add_subcommand(
      "bench", "Launch and compile overhead benchmarks; conv: the 3x3 filter's steps");
  bench_cmd->add_option("WHAT", bench.what, "launch, compile, conv or all")
      ->check(CLI::IsMember({"launch", "compile", "conv", "all"}))
      ->capture_default_str();
  bench_cmd->add_option("--launches", bench.launches, "Launches per repeat (0: automatic)")
      ->check(CLI::Range(0, std::numeric_limits<int>::max()));
  bench_cmd->add_option("--repeats", bench.repeats, "Repeats (the median is reported)")
      ->check(CLI::Range(1, std::numeric_limits<int>::max()))
      ->capture_default_str();
  bench_cmd->add_option("--plot", bench.plot, "conv: also draw the result as an SVG chart here");
  bench_cmd
      ->add_option(
          "--steps", bench.steps,
          "conv: all, shipped, or filter steps by label, e.g. 1,4,5b (5: every 5x variant)")
      ->capture_default_str();
  bench_cmd
      ->add_option("--timing", bench.timing,
                   "conv: queued (each launch queued behind a GPU hold: the GPU's time) or "
                   "idle (launched on an idle GPU: the window also holds the submission)")
      ->check(CLI::IsMember({"queued", "idle"}))
      ->capture_default_str();
  bench_cmd->add_flag("--warp-times", bench.warp_times,
                      "conv: also time each warp of one launch of each strip step (do a "
                      "launch's warps finish together?)");

  cli::RunOptions run;
  auto* run_cmd = app.add_subcommand(
      "run", "Run a program with cudakit's checking settings, e.g. run --sanitize -- ./prog");
  run_cmd->add_flag("--sanitize", run.sanitize,
                    "CPU backend, kernels under AddressSanitizer + UBSan, runtime preloaded");
  run_cmd->add_option("COMMAND", run.command, "The program and its arguments (after --)")
      ->required();

  cli::CheckOptions check;
  auto* check_cmd = app.add_subcommand(
      "check", "Run a program under compute-sanitizer; summarise problems per kernel and line");
  check_cmd->add_option("--tool", check.tool, "memcheck, racecheck, initcheck or synccheck")
      ->check(CLI::IsMember({"memcheck", "racecheck", "initcheck", "synccheck"}))
      ->capture_default_str();
  check_cmd->add_option("COMMAND", check.command, "The program and its arguments (after --)")
      ->required();

  cli::ProfileOptions profile;
  auto* profile_cmd = app.add_subcommand(
      "profile",
      "Run a program with CUDAKIT_PROFILE=1: a table of its launches per kernel at exit");
  profile_cmd->add_option("--trace", profile.trace,
                          "Also write the launches as a Chrome trace (JSON; opens in Perfetto)");
  profile_cmd->add_option("-o,--output", profile.output, "Also write the table to this file");
  profile_cmd->add_option("COMMAND", profile.command, "The program and its arguments (after --)")
      ->required();

  // CLI11 would say only "A subcommand is required" for a mistyped command.
  std::string names;
  bool known = false;
  for (const auto* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    names += (names.empty() ? "" : ", ") + sub->get_name();
    known = known || (argc > 1 && sub->get_name() == argv[1]);
  }
  if (argc > 1 && argv[1][0] != '-' && !known) {
    std::cerr << "cudakit: unknown command '" << argv[1] << "'; the commands are " << names
              << " (cudakit --help says what each does)\n";
    return 2;
  }

  CLI11_PARSE(app, argc, argv);

  try {
    if (*doctor_cmd) return cli::run_doctor(doctor);
    if (*info_cmd) return cli::run_info();
    if (*compile_cmd) return cli::run_compile(compile);
    if (*demo_cmd) return cli::run_demo(demo);
    if (*bench_cmd) return cli::run_bench(bench);
    if (*run_cmd) return cli::run_run(run);
    if (*check_cmd) return cli::run_check(check);
    if (*profile_cmd) return cli::run_profile(profile);
  } catch (const cudakit::Error& e) {
    std::cerr << "cudakit: " << e.what() << '\n';
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "cudakit: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
