//! A PostgreSQL server for the tests against the real binary: `initdb` and `pg_ctl` in a
//! temporary directory, as an unprivileged user when the test runs as root, stopped when
//! dropped. Shared by the crash test and the cluster test.

use std::path::PathBuf;
use std::process::Command;

/// A PostgreSQL server in a temporary directory, stopped when dropped.
pub struct Postgres {
    bin: PathBuf,
    data: PathBuf,
    dir: PathBuf,
    user: Option<&'static str>,
    port: u16,
}

impl Postgres {
    /// The PostgreSQL binaries: `$CHECKRAISE_PG_BIN`, else Debian's newest
    /// `/usr/lib/postgresql/*/bin`. Missing is a failure, not a skip: `scripts/test.sh`
    /// installs Debian's `postgresql`.
    pub fn bin() -> PathBuf {
        if let Ok(dir) = std::env::var("CHECKRAISE_PG_BIN") {
            return PathBuf::from(dir);
        }
        let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                let version = e.file_name().to_str()?.parse().ok()?;
                let bin = e.path().join("bin");
                bin.join("initdb").exists().then_some((version, bin))
            })
            .collect();
        versions.sort();
        versions.pop().map(|(_, bin)| bin).expect(
            "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): install it with \
             `apt-get install -y postgresql` (scripts/test.sh does), or set CHECKRAISE_PG_BIN",
        )
    }

    /// `command` as the user that runs PostgreSQL (it refuses to run as root).
    fn command(&self, program: &str) -> Command {
        let path = self.bin.join(program);
        match self.user {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(path);
                c
            }
            None => Command::new(path),
        }
    }

    /// Starts one in a new directory under `dir` (given to the PostgreSQL user when the test
    /// runs as root).
    pub fn start(dir: PathBuf) -> Self {
        // SAFETY-free check for root: `id -u`.
        let root = Command::new("id")
            .arg("-u")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
            .unwrap_or(false);
        let user = root.then(|| {
            let exists = |u: &str| {
                Command::new("id")
                    .arg(u)
                    .output()
                    .is_ok_and(|o| o.status.success())
            };
            if exists("postgres") {
                "postgres"
            } else {
                "nobody"
            }
        });
        if let Some(user) = user {
            let status = Command::new("chown")
                .args(["-R", user])
                .arg(&dir)
                .status()
                .unwrap();
            assert!(status.success(), "cannot give {} to {user}", dir.display());
        }
        let pg = Postgres {
            bin: Self::bin(),
            data: dir.join("data"),
            dir,
            user,
            port: std::net::TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port(),
        };
        let out = pg
            .command("initdb")
            .args(["-A", "trust", "-U", "checkraise", "-E", "UTF8", "-D"])
            .arg(&pg.data)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "initdb: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=on",
            pg.port,
            pg.dir.display()
        );
        let out = pg
            .command("pg_ctl")
            .args(["-w", "-t", "60", "-o", &options, "-l"])
            .arg(pg.dir.join("postgres.log"))
            .arg("-D")
            .arg(&pg.data)
            .arg("start")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "pg_ctl start: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        pg
    }

    /// Its URL, for `--database`.
    pub fn url(&self) -> String {
        format!("postgres://checkraise@127.0.0.1:{}/postgres", self.port)
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let _ = self
            .command("pg_ctl")
            .args(["-m", "immediate", "-D"])
            .arg(&self.data)
            .arg("stop")
            .output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
