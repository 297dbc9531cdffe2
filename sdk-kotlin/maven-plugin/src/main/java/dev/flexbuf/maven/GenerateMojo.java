package dev.flexbuf.maven;

import dev.flexbuf.jvm.FlexNative;
import dev.flexbuf.jvm.GenerateException;
import dev.flexbuf.jvm.NativeLibraryException;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.maven.plugin.AbstractMojo;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;
import org.apache.maven.project.MavenProject;

/**
 * Generates flexbuf coders from {@code .fxs} schemas with the Rust code
 * generator inside the Kotlin SDK's native library (the generator {@code
 * flexbuf gen} runs), and adds the output directory to the project's compile
 * source roots.
 *
 * <p>Generation is skipped when nothing it depends on changed since the last
 * run: the schemas, the other {@code .fxs} files in their directories (where
 * relative imports usually point), the language, the options and the
 * generator's version. Files a previous run wrote and this one did not are
 * deleted, so a removed schema leaves no stale coder behind.
 */
@Mojo(name = "generate", defaultPhase = LifecyclePhase.GENERATE_SOURCES, threadSafe = true)
public class GenerateMojo extends AbstractMojo {
    /** The stamp's first line; change it when the stamp's format changes. */
    static final String STAMP_VERSION = "flexbuf-maven-plugin stamp 1";

    @Parameter(defaultValue = "${project}", readonly = true, required = true)
    MavenProject project;

    /**
     * Schema files, or directories whose {@code .fxs} files (recursively) are
     * each generated. Default: {@code src/main/flexbuf}.
     */
    @Parameter
    List<File> schemas;

    /** The generator's language: {@code kotlin}, {@code rust}, {@code python} or {@code ts}. */
    @Parameter(property = "flexbuf.lang", defaultValue = "kotlin")
    String lang = "kotlin";

    /** With {@code lang} {@code ts}: how {@code i64}/{@code u64} are typed ({@code auto}, {@code checked}, {@code bigint}). */
    @Parameter(property = "flexbuf.tsInt64")
    String tsInt64;

    /** Where the generated files go; added to the compile source roots. */
    @Parameter(property = "flexbuf.outputDirectory", defaultValue = "${project.build.directory}/generated-sources/flexbuf")
    File outputDirectory;

    /** Where the stamp that makes reruns incremental is kept. */
    @Parameter(defaultValue = "${project.build.directory}/flexbuf-maven-plugin", readonly = true)
    File stampDirectory;

    /** Skips the goal (the output directory is not added either). */
    @Parameter(property = "flexbuf.skip", defaultValue = "false")
    boolean skip;

    @Override
    public void execute() throws MojoExecutionException, MojoFailureException {
        if (skip) {
            getLog().info("flexbuf: skipped");
            return;
        }
        List<File> inputs = schemaFiles();
        if (inputs.isEmpty()) {
            throw new MojoFailureException("flexbuf: no .fxs schema found in " + configuredSchemas());
        }
        try {
            FlexNative.INSTANCE.load();
        } catch (NativeLibraryException e) {
            throw new MojoExecutionException("flexbuf: " + e.getMessage(), e);
        }
        Path stamp = stampDirectory.toPath().resolve(
            "stamp-" + Integer.toHexString(outputDirectory.getAbsolutePath().hashCode()) + ".txt");
        String key = inputsKey(inputs);
        List<String> previous = readStamp(stamp);
        if (previous.size() > 1 && previous.get(1).equals(key) && allExist(previous.subList(2, previous.size()))) {
            getLog().info("flexbuf: " + inputs.size() + " schema(s) unchanged, " + outputDirectory + " is up to date");
        } else {
            Set<String> written = new LinkedHashSet<>();
            for (File schema : inputs) {
                try {
                    for (File f : FlexNative.generate(lang, schema, outputDirectory, tsInt64)) {
                        written.add(f.getAbsolutePath());
                    }
                } catch (GenerateException e) {
                    deleteQuietly(stamp);
                    if (e.getUsage()) {
                        throw new MojoExecutionException("flexbuf: " + e.getMessage(), e);
                    }
                    throw new MojoFailureException("flexbuf: errors in " + schema + ":\n" + e.getMessage(), e);
                }
            }
            for (String old : previous.size() > 2 ? previous.subList(2, previous.size()) : List.<String>of()) {
                if (!written.contains(old)) {
                    deleteQuietly(Path.of(old));
                }
            }
            writeStamp(stamp, key, written);
            getLog().info("flexbuf: generated " + written.size() + " " + lang + " file(s) from "
                + inputs.size() + " schema(s) into " + outputDirectory);
        }
        project.addCompileSourceRoot(outputDirectory.getAbsolutePath());
    }

    private List<File> configuredSchemas() {
        if (schemas == null || schemas.isEmpty()) {
            return List.of(new File(project.getBasedir(), "src/main/flexbuf"));
        }
        return schemas;
    }

    /** The schema files to generate, in a stable order, each once. */
    List<File> schemaFiles() throws MojoExecutionException {
        Set<File> out = new TreeSet<>();
        for (File s : configuredSchemas()) {
            if (s.isDirectory()) {
                try (Stream<Path> walk = Files.walk(s.toPath())) {
                    walk.filter(p -> p.toString().endsWith(".fxs") && Files.isRegularFile(p))
                        .forEach(p -> out.add(p.toFile().getAbsoluteFile()));
                } catch (IOException e) {
                    throw new MojoExecutionException("flexbuf: cannot list " + s + ": " + e.getMessage(), e);
                }
            } else if (s.isFile()) {
                out.add(s.getAbsoluteFile());
            } else if (schemas != null && !schemas.isEmpty()) {
                throw new MojoExecutionException("flexbuf: schema " + s + " does not exist");
            }
        }
        return new ArrayList<>(out);
    }

    /**
     * A digest of everything the output depends on: the generator version and
     * options, and the path and bytes of every {@code .fxs} file beside each schema.
     */
    private String inputsKey(List<File> inputs) throws MojoExecutionException {
        Set<Path> files = new TreeSet<>();
        for (File schema : inputs) {
            File dir = schema.getParentFile();
            File[] siblings = dir == null ? null : dir.listFiles((d, n) -> n.endsWith(".fxs"));
            if (siblings != null) {
                for (File f : siblings) {
                    files.add(f.toPath());
                }
            }
            files.add(schema.toPath());
        }
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            String head = FlexNative.INSTANCE.nativeCoreVersion() + "\0" + lang + "\0" + tsInt64 + "\0"
                + outputDirectory.getAbsolutePath() + "\0" + inputs;
            md.update(head.getBytes(StandardCharsets.UTF_8));
            for (Path f : files) {
                md.update(("\0" + f + "\0").getBytes(StandardCharsets.UTF_8));
                md.update(Files.readAllBytes(f));
            }
            return HexFormat.of().formatHex(md.digest());
        } catch (IOException e) {
            throw new MojoExecutionException("flexbuf: cannot read a schema: " + e.getMessage(), e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The stamp's lines (version, key, written files), or nothing when absent or of another version. */
    private static List<String> readStamp(Path stamp) {
        try {
            List<String> lines = Files.readAllLines(stamp, StandardCharsets.UTF_8);
            return !lines.isEmpty() && lines.get(0).equals(STAMP_VERSION) ? lines : List.of();
        } catch (IOException e) {
            return List.of();
        }
    }

    private static boolean allExist(List<String> paths) {
        return paths.stream().allMatch(p -> Files.isRegularFile(Path.of(p)));
    }

    private static void writeStamp(Path stamp, String key, Set<String> written) throws MojoExecutionException {
        List<String> lines = new ArrayList<>();
        lines.add(STAMP_VERSION);
        lines.add(key);
        lines.addAll(written);
        try {
            Files.createDirectories(stamp.getParent());
            Files.write(stamp, lines, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new MojoExecutionException("flexbuf: cannot write " + stamp + ": " + e.getMessage(), e);
        }
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // A file we cannot delete is only a stale leftover; generation itself succeeded or already failed.
        }
    }
}
