package dev.flexbuf.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.*;

/** Encode and decode of every fixture with each codec, side by side in one run (deep_nesting does not fit its schema by design: its typed case expects a type error). */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class CodecBench {
    @Param({"api_response", "chat_thread", "metrics_96k", "repeated_maps", "string_flood",
            "time_series", "unicode_heavy", "user_profile", "wide_map", "width_bomb"})
    public String fixture;

    private BenchData d;

    @Setup
    public void setup() { d = new BenchData(fixture); }

    @Benchmark public Object genEncode() { return d.genEncode(); }
    @Benchmark public Object genDecode() { return d.genDecode(); }
    @Benchmark public Object verify() { return d.verify(); }
    @Benchmark public Object flexEncode() { return d.flexEncode(); }
    @Benchmark public Object flexDecode() { return d.flexDecode(); }
    @Benchmark public Object jsonEncode() { return d.jsonEncode(); }
    @Benchmark public Object jsonDecode() { return d.jsonDecode(); }
    @Benchmark public Object jsonEncodeBytes() { return d.jsonEncodeBytes(); }
    @Benchmark public Object jsonDecodeBytes() { return d.jsonDecodeBytes(); }
    @Benchmark public Object protoEncode() { return d.protoEncode(); }
    @Benchmark public Object protoDecode() { return d.protoDecode(); }
    @Benchmark public Object fbEncode() { return d.fbEncode(); }
    @Benchmark public long fbDecode() { return d.fbDecode(); }
    @Benchmark public long utf8Strings() { return d.utf8Strings(); }
}
