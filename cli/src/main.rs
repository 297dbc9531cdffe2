//! `flexbuf`: convert between JSON and FlexBuffers, validate buffers and inspect their layout.
//!
//! Exit codes: 0 success, 1 bad data (the input is not valid JSON or not a
//! valid FlexBuffer, or cannot be converted), 2 usage (bad arguments, an
//! input that cannot be read or an output that cannot be written).

mod inspect;
mod io;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};
use flexbuf::json::{from_json_with, to_json_with, NonFinite};
use flexbuf::{verify_with, Budget, ErrorKind, JsonOptions, ShareFlags, VerifyOptions};

use crate::inspect::{ColorChoice, InspectOptions};
use crate::io::{read_input, Failure, Output};

const AFTER_HELP: &str = "\
Files: INPUT defaults to standard input (also when it is `-`); output goes to
standard output unless `-o FILE` is given.

Exit codes:
  0  success
  1  bad data: invalid JSON, an invalid FlexBuffer, or a value JSON cannot hold
  2  usage: bad arguments, unreadable input or unwritable output

Examples:
  flexbuf from-json data.json -o data.flex
  flexbuf to-json --pretty data.flex
  curl -s https://example.invalid/x.json | flexbuf from-json --share all > x.flex
  flexbuf validate data.flex && flexbuf inspect data.flex | less -R";

/// Convert between JSON and FlexBuffers, validate buffers and inspect their layout.
#[derive(Parser, Debug)]
#[command(name = "flexbuf", version, after_help = AFTER_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Convert JSON text (UTF-8) into a FlexBuffer.
    ///
    /// Objects become maps, arrays untyped vectors, integers ints (uints above
    /// i64, doubles above u64), other numbers doubles. A duplicate key in one
    /// object is an error naming its path. A leading UTF-8 byte order mark is
    /// ignored. The binary is written as is, also to a terminal.
    FromJson(FromJsonArgs),
    /// Convert a FlexBuffer into JSON text (verified first).
    ///
    /// Maps become objects, vectors arrays, blobs base64 strings. Expansion of
    /// shared data is capped by a budget proportional to the input size.
    ToJson(ToJsonArgs),
    /// Check that a FlexBuffer is well formed.
    ///
    /// Prints `valid (N bytes)` and exits 0, or prints one line naming the
    /// problem, its path and byte offset and exits 1.
    Validate(ValidateArgs),
    /// Print an annotated tree of a FlexBuffer: offsets, types, widths, values.
    ///
    /// Each line reads `@SLOT TYPE wN [-> @DATA] [details] [= value]`: SLOT is
    /// the decimal offset of the value's slot, N its width in bytes (the stored
    /// width of a scalar; the element or size width of the data behind an
    /// offset), DATA where that data starts. Long strings and blobs are
    /// shortened. Shared data is printed at every place it is used, under a
    /// node budget, so a small buffer cannot print gigabytes.
    Inspect(InspectArgs),
    /// Generate typed coders from a `.fxs` schema.
    ///
    /// Writes one file per schema into OUTPUT (created if missing). Schema
    /// errors are printed as `file:line:column: error: ...` with a hint, and
    /// exit 1.
    Gen(GenArgs),
}

/// The `--lang` values: one per backend of `flexbuf_codegen::backend::BACKENDS`.
fn languages() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(
        flexbuf_codegen::backend::BACKENDS
            .iter()
            .map(|b| clap::builder::PossibleValue::new(b.name()).help(b.summary())),
    )
}

#[derive(Args, Debug)]
struct GenArgs {
    /// Language to generate.
    #[arg(long, value_parser = languages())]
    lang: String,
    /// The schema file (`.fxs`); its imports are followed.
    #[arg(value_name = "SCHEMA")]
    schema: PathBuf,
    /// Output directory.
    #[arg(short, long, value_name = "DIR")]
    output: PathBuf,
    /// With `--lang ts`: how `i64`/`u64` fields are typed (a field's `ts_int64` attribute overrides it; see sdk-ts/README.md).
    #[arg(long, value_enum, default_value_t = TsInt64::Auto)]
    ts_int64: TsInt64,
}

/// The `--ts-int64` policies (`flexbuf_codegen::backend::typescript::Int64`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum TsInt64 {
    /// `number | bigint`: a number when safe, a bigint otherwise.
    Auto,
    /// `number`: decode fails with OutOfRange beyond 2^53 - 1.
    Checked,
    /// `bigint` always.
    Bigint,
}

/// Input file argument shared by every command.
#[derive(Args, Debug)]
struct InputArg {
    /// Input file; standard input when absent or `-`.
    #[arg(value_name = "INPUT")]
    input: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct FromJsonArgs {
    #[command(flatten)]
    input: InputArg,
    /// Which repeated values the builder stores once.
    #[arg(long, value_enum, default_value_t = Share::Keys)]
    share: Share,
    /// Deepest nesting of arrays and objects accepted (at most 1024).
    #[arg(long, value_name = "N", default_value_t = 64)]
    max_depth: usize,
    /// Output file; standard output when absent or `-`.
    #[arg(short, long, value_name = "OUTPUT")]
    output: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct ToJsonArgs {
    #[command(flatten)]
    input: InputArg,
    /// Indent with two spaces per level.
    #[arg(long)]
    pretty: bool,
    /// What to write for NaN and infinities, which JSON cannot represent.
    #[arg(long, value_enum, value_name = "MODE", default_value_t = NonFiniteArg::Error)]
    non_finite: NonFiniteArg,
    /// Deepest nesting of vectors and maps accepted (at most 1024).
    #[arg(long, value_name = "N", default_value_t = 64)]
    max_depth: usize,
    /// Cap on output bytes (and nodes) instead of the default budget of 256
    /// bytes per input byte, at least 1 MiB.
    #[arg(long, value_name = "BYTES")]
    max_output: Option<u64>,
    /// Output file; standard output when absent or `-`.
    #[arg(short, long, value_name = "OUTPUT")]
    output: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct ValidateArgs {
    #[command(flatten)]
    input: InputArg,
    /// Deepest nesting of vectors and maps accepted (at most 1024).
    #[arg(long, value_name = "N", default_value_t = 64)]
    max_depth: usize,
}

#[derive(Args, Debug)]
struct InspectArgs {
    #[command(flatten)]
    input: InputArg,
    /// Colour the output: `auto` colours a terminal unless NO_COLOR is set.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
    /// Deepest nesting of vectors and maps accepted (at most 1024).
    #[arg(long, value_name = "N", default_value_t = 64)]
    max_depth: usize,
    /// Stop after printing this many values. Default: 64 values per input
    /// byte (at least 65536), and output capped at 256 bytes per input byte
    /// (at least 1 MiB).
    #[arg(long, value_name = "N")]
    max_nodes: Option<u64>,
}

/// Sharing presets, named after the C++ builder flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Share {
    /// Store every key and string where it is written.
    None,
    /// Store each distinct key once (the C++ default).
    Keys,
    /// Store each distinct string once; keys are not shared.
    Strings,
    /// Share keys and strings.
    KeysAndStrings,
    /// Every C++ sharing flag (keys and strings; key-vector sharing is a no-op there too).
    All,
}

impl Share {
    fn flags(self) -> ShareFlags {
        match self {
            Share::None => ShareFlags::NONE,
            Share::Keys => ShareFlags::KEYS,
            Share::Strings => ShareFlags::STRINGS,
            Share::KeysAndStrings => ShareFlags::KEYS_AND_STRINGS,
            Share::All => ShareFlags::ALL,
        }
    }
}

/// Command-line spelling of [`NonFinite`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum NonFiniteArg {
    /// Fail (exit 1).
    Error,
    /// Write `null`.
    Null,
    /// Write `NaN`, `Infinity`, `-Infinity` (not valid JSON).
    Literal,
}

impl From<NonFiniteArg> for NonFinite {
    fn from(a: NonFiniteArg) -> Self {
        match a {
            NonFiniteArg::Error => NonFinite::Error,
            NonFiniteArg::Null => NonFinite::Null,
            NonFiniteArg::Literal => NonFinite::Literal,
        }
    }
}

fn verify_options(max_depth: usize) -> VerifyOptions {
    VerifyOptions {
        max_depth,
        ..VerifyOptions::default()
    }
}

fn from_json(args: FromJsonArgs) -> Result<(), Failure> {
    let output = Output::new(args.output);
    let bytes = read_input(args.input.input.as_deref())?;
    let text = io::utf8_text(&bytes)?;
    let options = JsonOptions {
        share: args.share.flags(),
        max_depth: args.max_depth,
        ..JsonOptions::default()
    };
    let buffer = from_json_with(text, &options).map_err(|e| match e.kind() {
        // The kind's own text starts with "JSON: ".
        ErrorKind::Json(_) => Failure::Data(format!("invalid {e}")),
        _ => Failure::Data(format!("cannot convert JSON: {e}")),
    })?;
    output.write(&buffer)
}

fn to_json(args: ToJsonArgs) -> Result<(), Failure> {
    let output = Output::new(args.output);
    let bytes = read_input(args.input.input.as_deref())?;
    let options = JsonOptions {
        pretty: args.pretty,
        non_finite: args.non_finite.into(),
        verify: verify_options(args.max_depth),
        max_output_bytes: args.max_output,
        ..JsonOptions::default()
    };
    let mut json = to_json_with(&bytes, &options).map_err(|e| match e.kind() {
        ErrorKind::BudgetExceeded | ErrorKind::NonFiniteFloat => {
            Failure::Data(format!("cannot convert to JSON: {e}"))
        }
        // Everything else comes from the verifier.
        _ => io::invalid(e),
    })?;
    json.push('\n');
    output.write(json.as_bytes())
}

fn validate(args: ValidateArgs) -> Result<(), Failure> {
    let bytes = read_input(args.input.input.as_deref())?;
    verify_with(&bytes, &verify_options(args.max_depth)).map_err(io::invalid)?;
    Output::Stdout.write(format!("valid ({} bytes)\n", bytes.len()).as_bytes())
}

fn inspect(args: InspectArgs) -> Result<(), Failure> {
    let bytes = read_input(args.input.input.as_deref())?;
    let budget = match args.max_nodes {
        // Every line is bounded in length, so a node cap also bounds the output.
        Some(n) => Budget::new(n, u64::MAX),
        None => Budget::for_input(bytes.len()),
    };
    let options = InspectOptions {
        color: args.color.enabled(),
        verify: verify_options(args.max_depth),
        budget,
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    inspect::inspect(&bytes, &options, &mut out)
}

fn gen(args: GenArgs) -> Result<(), Failure> {
    std::fs::create_dir_all(&args.output)
        .map_err(|e| Failure::Usage(format!("cannot create {}: {e}", args.output.display())))?;
    let backend = flexbuf_codegen::backend::find(&args.lang)
        .ok_or_else(|| Failure::Usage(format!("unknown language `{}`", args.lang)))?;
    use flexbuf_codegen::backend::typescript::{Int64, TypeScript};
    let ts;
    let backend: &dyn flexbuf_codegen::backend::Backend = match args.ts_int64 {
        TsInt64::Auto => backend,
        _ if args.lang != "ts" => {
            return Err(Failure::Usage(
                "--ts-int64 applies to --lang ts only".into(),
            ))
        }
        policy => {
            ts = TypeScript {
                int64: if policy == TsInt64::Checked {
                    Int64::Checked
                } else {
                    Int64::BigInt
                },
            };
            &ts
        }
    };
    let written = flexbuf_codegen::generate_to_dir(backend, &args.schema, &args.output)
        .map_err(Failure::Data)?;
    let list: String = written
        .iter()
        .map(|p| format!("wrote {}\n", p.display()))
        .collect();
    Output::Stdout.write(list.as_bytes())
}

fn run(cli: Cli) -> Result<(), Failure> {
    match cli.command {
        Command::FromJson(a) => from_json(a),
        Command::ToJson(a) => to_json(a),
        Command::Validate(a) => validate(a),
        Command::Inspect(a) => inspect(a),
        Command::Gen(a) => gen(a),
    }
}

fn main() -> ExitCode {
    // Argument errors exit 2 inside `parse`; `--help` and `--version` exit 0.
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => f.report(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn command_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn share_presets_map_to_the_cpp_flags() {
        assert_eq!(Share::Keys.flags(), ShareFlags::KEYS);
        assert_eq!(Share::Strings.flags().bits(), 2);
        assert_eq!(Share::All.flags(), ShareFlags::ALL);
    }
}
