package dev.flexbuf.maven;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.project.MavenProject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The goal run directly on a bare project: generation, diagnostics, skipping, incrementality. */
class GenerateMojoTest {
    @TempDir
    Path dir;

    private GenerateMojo mojo(File... schemas) {
        GenerateMojo m = new GenerateMojo();
        m.project = new MavenProject();
        m.project.setFile(dir.resolve("pom.xml").toFile());
        m.schemas = schemas.length == 0 ? null : List.of(schemas);
        m.outputDirectory = dir.resolve("target/generated-sources/flexbuf").toFile();
        m.stampDirectory = dir.resolve("target/flexbuf-maven-plugin").toFile();
        return m;
    }

    private File write(String name, String text) throws IOException {
        Path p = dir.resolve(name);
        Files.createDirectories(p.getParent());
        return Files.writeString(p, text).toFile();
    }

    @Test
    void generatesKotlinFromTheDefaultDirectoryAndAddsTheSourceRoot() throws Exception {
        write("src/main/flexbuf/point.fxs", "namespace geo;\nmessage Point { x: f64; y: f64; }\n");
        GenerateMojo m = mojo();
        m.execute();
        Path out = m.outputDirectory.toPath().resolve("geo/Point.kt");
        assertTrue(Files.readString(out).contains("data class Point("), "missing Point in " + out);
        assertEquals(List.of(m.outputDirectory.getAbsolutePath()), m.project.getCompileSourceRoots());
    }

    @Test
    void aSchemaErrorFailsWithTheGeneratorsDiagnostics() throws Exception {
        File bad = write("schemas/bad.fxs", "message A { x: nosuch; }\n");
        GenerateMojo m = mojo(bad);
        MojoFailureException e = assertThrows(MojoFailureException.class, m::execute);
        assertTrue(e.getMessage().contains("bad.fxs:1:"), e.getMessage());
        assertTrue(e.getMessage().contains("nosuch"), e.getMessage());
        assertFalse(Files.exists(m.outputDirectory.toPath()) && Files.list(m.outputDirectory.toPath()).findAny().isPresent());
        assertTrue(m.project.getCompileSourceRoots().isEmpty());
    }

    @Test
    void anUnknownLanguageIsAConfigurationError() throws Exception {
        GenerateMojo m = mojo(write("p.fxs", "message P { x: i32; }\n"));
        m.lang = "cobol";
        MojoExecutionException e = assertThrows(MojoExecutionException.class, m::execute);
        assertTrue(e.getMessage().contains("cobol"), e.getMessage());
    }

    @Test
    void aMissingSchemaOrAnEmptyDirectoryFails() throws Exception {
        assertThrows(MojoExecutionException.class, () -> mojo(dir.resolve("nope.fxs").toFile()).execute());
        Files.createDirectories(dir.resolve("empty"));
        assertThrows(MojoFailureException.class, () -> mojo(dir.resolve("empty").toFile()).execute());
    }

    @Test
    void skipDoesNothing() throws Exception {
        GenerateMojo m = mojo(write("bad.fxs", "message A { x: nosuch; }\n"));
        m.skip = true;
        m.execute();
        assertFalse(Files.exists(m.outputDirectory.toPath()));
        assertTrue(m.project.getCompileSourceRoots().isEmpty());
    }

    @Test
    void unchangedSchemasAreNotRegeneratedAndChangesOrRemovalsAre() throws Exception {
        File a = write("s/a.fxs", "namespace a;\nmessage A { x: i32; }\n");
        File b = write("s/b.fxs", "namespace b;\nmessage B { y: i32; }\n");
        mojo(dir.resolve("s").toFile()).execute();
        Path aKt = dir.resolve("target/generated-sources/flexbuf/a/A.kt");
        Path bKt = dir.resolve("target/generated-sources/flexbuf/b/B.kt");
        FileTime old = FileTime.fromMillis(0);
        Files.setLastModifiedTime(aKt, old);

        mojo(dir.resolve("s").toFile()).execute();
        assertEquals(old, Files.getLastModifiedTime(aKt), "regenerated although nothing changed");

        Files.writeString(a.toPath(), "namespace a;\nmessage A { x: i32; z: string; }\n");
        mojo(dir.resolve("s").toFile()).execute();
        assertTrue(Files.readString(aKt).contains("val z:"), "a change was not picked up");

        Files.delete(b.toPath());
        mojo(dir.resolve("s").toFile()).execute();
        assertFalse(Files.exists(bKt), "the coder of a removed schema was left behind");

        Files.delete(aKt);
        mojo(dir.resolve("s").toFile()).execute();
        assertTrue(Files.exists(aKt), "a deleted output was not regenerated");
    }
}
