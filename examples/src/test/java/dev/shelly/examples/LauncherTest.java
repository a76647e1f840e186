package dev.shelly.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.api.Test;

/** The jar's entry point loads on JVMs too old for the rest, so that it can say so. */
class LauncherTest {

    private static int majorVersion(Class<?> type) throws IOException {
        try (InputStream in = type.getResourceAsStream(type.getSimpleName() + ".class");
                DataInputStream data = new DataInputStream(in)) {
            assertThat(data.readInt()).isEqualTo(0xCAFEBABE);
            data.readUnsignedShort();
            return data.readUnsignedShort();
        }
    }

    @Test
    void theLauncherIsCompiledForJava11AndEverythingElseForJava21() throws IOException {
        assertThat(majorVersion(Launcher.class)).as("class file version of Launcher (55 = Java 11)").isEqualTo(55);
        assertThat(majorVersion(Main.class)).as("class file version of Main (65 = Java 21)").isEqualTo(65);
    }
}
