//! The Java entry of the language list, kept in a file of its own so that
//! it moves whole when languages get manifests of their own.

use std::path::Path;

use super::{line, Language, Step};

/// Java: Maven builds into `<target>/parity/java` (classes, the runtime jars
/// in `lib/`, the JUnit console launcher in `junit/`), skipped while fresh,
/// and the runner, demo and tests start with `java` directly: `mvn exec` or
/// a wrapper script would cost seconds and leave a grandchild.
pub(super) fn language(target: &Path) -> Language {
    let out = target.join("parity/java");
    let under = |path: &str| out.join(path).to_string_lossy().into_owned();
    // `mvn -f runners/java/pom.xml` resolves a relative folder from there.
    let from_pom = if out.is_absolute() {
        out.clone()
    } else {
        Path::new("../..").join(&out)
    };
    let classes = format!("{}:{}", under("classes"), under("lib/*"));
    let java = |flags: &[&str], main: &str| -> Vec<String> {
        // The JVM's own warnings go to stdout by default, where they would
        // break the protocol or the transcript: send them to stderr.
        let mut argv = line("java -Xlog:disable -Xlog:all=warning:stderr");
        argv.extend(flags.iter().map(|f| (*f).to_owned()));
        argv.extend(["-cp".to_owned(), classes.clone(), main.to_owned()]);
        argv
    };
    let mut build = line("mvn --batch-mode --quiet -Dstyle.color=never -f runners/java/pom.xml");
    build.push(format!("-Dparity.out={}", from_pom.display()));
    build.push("process-test-classes".to_owned());
    let stamp = under("build.stamp");
    let outputs = [
        under("classes/outbox/cli/Runner.class"),
        under("classes/outbox/cli/Demo.class"),
        under("test-classes/outbox/OutboxTest.class"),
        under("lib/jackson-databind.jar"),
        under("junit/junit-platform-console-standalone.jar"),
    ];
    let inputs = ["runners/java/pom.xml", "runners/java/src"];
    let outputs: Vec<&str> = outputs.iter().map(String::as_str).collect();
    Language {
        name: "java".into(),
        // Both: the probe's job is to say which tool is missing.
        probe: vec![
            "sh".into(),
            "-c".into(),
            "java -version && mvn --batch-mode --version".into(),
        ],
        install_hint: "install a Java 17+ JDK and Maven 3.8+ (Debian: apt-get install \
                       openjdk-17-jdk-headless maven, or make setup)"
            .into(),
        build: vec![Step::unless_fresh(build, &stamp, &inputs, &outputs)],
        runner: java(&[], "outbox.cli.Runner"),
        // A demo lives for a quarter second: the quick JIT tier and the
        // serial collector start fastest.
        demo: java(
            &["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"],
            "outbox.cli.Demo",
        ),
        // The console launcher on the class path, beside the tests and the
        // jars (`-cp` expands `lib/*`; the launcher's own --class-path would not).
        unit: [
            "java",
            "-XX:TieredStopAtLevel=1",
            "-cp",
            &format!(
                "{}:{}:{classes}",
                under("junit/junit-platform-console-standalone.jar"),
                under("test-classes")
            ),
            "org.junit.platform.console.ConsoleLauncher",
            "execute",
            "--disable-banner",
            "--disable-ansi-colors",
            "--details=tree",
            "--fail-if-no-tests",
            "--select-package",
            "outbox",
        ]
        .into_iter()
        .map(str::to_owned)
        .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Maven resolves `-Dparity.out` from `runners/java`, the runner's class
    /// path from the root: both must land in the same folder.
    #[test]
    fn java_builds_where_its_runner_and_tests_look() {
        for target in ["/elsewhere/target", "relative/target"] {
            let languages = crate::toolchain::builtin(Path::new(target));
            let java = languages.last().expect("java is appended last");
            assert_eq!(java.name, "java");
            let out = java.build[0]
                .argv
                .iter()
                .find_map(|a| a.strip_prefix("-Dparity.out="))
                .expect("the build names its output folder");
            let seen_from_the_root = Path::new("runners/java").join(out);
            assert!(
                seen_from_the_root.ends_with(format!("{target}/parity/java"))
                    || out == format!("{target}/parity/java"),
                "{out}"
            );
            let classes = format!("{target}/parity/java/classes:{target}/parity/java/lib/*");
            assert_eq!(java.runner[java.runner.len() - 2], classes);
            assert_eq!(java.demo[java.demo.len() - 2], classes);
            assert!(
                java.unit.iter().any(|a| a.starts_with(target)),
                "{:?}",
                java.unit
            );
            let fresh = java.build[0]
                .unless_fresh
                .as_ref()
                .expect("skipped while fresh");
            assert!(fresh.stamp.starts_with(target));
        }
    }
}
