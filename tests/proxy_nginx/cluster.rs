//! The processes under test: one `pensive mock-upstream`, two `pensive serve`
//! against it, and nginx in front of both, over TLS with a self-signed
//! certificate made by `openssl` for the test. Dropping the `Cluster` stops every
//! one of them, also when a test panics, and also when start-up itself fails
//! half-way (the processes already started belong to the `Cluster` by then).

use std::fs::File;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::nginx_conf;

/// How long a process may take to answer its readiness check.
const READY_WITHIN: Duration = Duration::from_secs(20);
/// How often readiness and other conditions are polled.
pub const POLL_INTERVAL: Duration = Duration::from_millis(25);

/// What differs between the tests' clusters.
pub struct Options {
    /// The cluster takes this port and the next four (mock, two backends,
    /// nginx over HTTPS, nginx's plain-HTTP redirect).
    pub base_port: u16,
    /// `mock-upstream --delay-ms`: the pause before each streamed chunk.
    pub delay_ms: u64,
    /// `PENSIVE_ACCESS_TOKEN` for both backends.
    pub access_token: Option<&'static str>,
    /// A `redis-server` on the sixth port, shared by both backends
    /// (`PENSIVE_REDIS_URL`).
    pub redis: bool,
}

/// A started process, stopped when dropped.
struct Spawned {
    name: String,
    child: Child,
    /// Stop with SIGTERM and wait (nginx: its master then stops the workers;
    /// SIGKILL would leave them running, orphaned, on the port).
    graceful: bool,
    log: PathBuf,
}

impl Spawned {
    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(Some(_))) {
            return;
        }
        if self.graceful {
            let _ = Command::new("kill")
                .args(["-TERM", &self.child.id().to_string()])
                .status();
            let deadline = Instant::now() + Duration::from_secs(5);
            while Instant::now() < deadline {
                if matches!(self.child.try_wait(), Ok(Some(_))) {
                    return;
                }
                std::thread::sleep(POLL_INTERVAL);
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The running cluster.
pub struct Cluster {
    /// Configuration, logs and nginx's paths; removed on drop unless a test failed.
    pub dir: PathBuf,
    pub mock: String,
    pub backends: [String; 2],
    /// nginx's HTTPS address (reach it as `localhost`, the certificate's name: see `url`).
    pub nginx: String,
    /// nginx's plain-HTTP address, which only redirects.
    pub nginx_http: String,
    /// The self-signed certificate nginx serves (PEM).
    pub certificate: PathBuf,
    /// In start order; stopped in reverse.
    processes: Vec<Spawned>,
}

impl Cluster {
    /// Starts everything and waits (polling) until each process answers.
    pub fn start(options: Options) -> Cluster {
        let nginx_binary = nginx_binary();
        let address = |offset: u16| format!("127.0.0.1:{}", options.base_port + offset);
        let dir = std::env::temp_dir().join(format!(
            "pensive-proxy-{}-{}",
            std::process::id(),
            options.base_port
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("site"))
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
        let certificate = dir.join("pensive.pem");
        let mut cluster = Cluster {
            dir,
            mock: address(0),
            backends: [address(1), address(2)],
            nginx: address(3),
            nginx_http: address(4),
            certificate,
            processes: Vec::new(),
        };

        let mut mock = Command::new(env!("CARGO_BIN_EXE_pensive"));
        mock.args(["mock-upstream", "--addr", &cluster.mock])
            .args(["--delay-ms", &options.delay_ms.to_string()]);
        cluster.spawn("mock-upstream", mock, false);
        cluster.wait_until_ready("mock-upstream", &cluster.mock.clone(), "/_mock/stats", 200);

        let redis = options.redis.then(|| address(5));
        if let Some(redis) = &redis {
            let port = redis.rsplit(':').next().unwrap_or_default().to_owned();
            let mut server = Command::new("redis-server");
            server.args(["--port", &port, "--bind", "127.0.0.1"]);
            server.args(["--save", "", "--appendonly", "no"]);
            cluster.spawn("redis-server", server, false);
            cluster.wait_until_listening("redis-server", redis);
        }
        let models = cluster.dir.join("pensive.toml");
        write(&models, &models_toml(&cluster.mock));
        for (index, addr) in cluster.backends.clone().iter().enumerate() {
            let name = format!("backend-{index}");
            let mut serve = backend_command(&cluster.dir, addr, &models, options.access_token);
            if let Some(redis) = &redis {
                serve.env("PENSIVE_REDIS_URL", format!("redis://{redis}/"));
            }
            cluster.spawn(&name, serve, false);
            cluster.wait_until_ready(&name, addr, "/healthz", 200);
        }

        let key = cluster.dir.join("pensive.key");
        self_signed_certificate(&cluster.certificate, &key);
        let site = cluster.dir.join("pensive.conf");
        let addresses = nginx_conf::Addresses {
            listen: &cluster.nginx,
            listen_http: &cluster.nginx_http,
            backends: [&cluster.backends[0], &cluster.backends[1]],
            certificate: &cluster.certificate,
            key: &key,
        };
        write(&site, &nginx_conf::site(&addresses, &cluster.access_log()));
        let main_conf = cluster.dir.join("nginx.conf");
        write(&main_conf, &nginx_conf::main(&cluster.dir, &site));
        let mut nginx = Command::new(nginx_binary);
        // -e: the error log nginx opens before reading its configuration.
        nginx
            .arg("-e")
            .arg(cluster.dir.join("error.log"))
            .arg("-p")
            .arg(&cluster.dir)
            .arg("-c")
            .arg(&main_conf)
            .args(["-g", "daemon off;"]);
        cluster.spawn("nginx", nginx, true);
        // Both server blocks open their ports together: the plain-HTTP one
        // answering its redirect means the TLS one listens too.
        cluster.wait_until_ready("nginx", &cluster.nginx_http.clone(), "/healthz", 301);
        cluster
    }

    /// `https://localhost:<nginx port><path>`: the certificate's name, and one
    /// the backends allow (PENSIVE_ALLOWED_HOSTS).
    pub fn url(&self, path: &str) -> String {
        let port = self.nginx.rsplit(':').next().unwrap_or_default();
        format!("https://localhost:{port}{path}")
    }

    /// An HTTPS client that trusts only the test's certificate, follows no
    /// redirects and ignores proxy settings.
    pub fn client(&self) -> reqwest::Client {
        let pem = std::fs::read(&self.certificate)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", self.certificate.display()));
        let certificate = reqwest::Certificate::from_pem(&pem).expect("a PEM certificate");
        reqwest::Client::builder()
            .no_proxy()
            .tls_certs_only([certificate])
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(20))
            .build()
            .expect("an HTTPS client")
    }

    /// nginx's access log (the site file's `pensive_upstream` format).
    pub fn access_log(&self) -> PathBuf {
        self.dir.join("access.log")
    }

    /// Waits until something accepts connections on `addr`.
    fn wait_until_listening(&self, name: &str, addr: &str) {
        let deadline = Instant::now() + READY_WITHIN;
        while TcpStream::connect(addr).is_err() {
            assert!(Instant::now() < deadline, "{name} never listened on {addr}");
            std::thread::sleep(POLL_INTERVAL);
        }
    }

    /// Kills one backend outright (SIGKILL: no goodbye, as when it dies).
    pub fn kill_backend(&mut self, index: usize) {
        let name = format!("backend-{index}");
        if let Some(process) = self.processes.iter_mut().find(|p| p.name == name) {
            let _ = process.child.kill();
            let _ = process.child.wait();
        }
    }

    /// Stops one backend (the other keeps serving).
    pub fn stop_backend(&mut self, index: usize) {
        let name = format!("backend-{index}");
        let position = self
            .processes
            .iter()
            .position(|p| p.name == name)
            .unwrap_or_else(|| panic!("{name} is not running"));
        drop(self.processes.remove(position));
    }

    /// Every process id of the cluster: the started ones and nginx's workers.
    pub fn pids(&self) -> Vec<u32> {
        let started: Vec<u32> = self.processes.iter().map(|p| p.child.id()).collect();
        let mut all = started.clone();
        all.extend(children_of(&started));
        all
    }

    /// Every port the cluster listens on.
    pub fn addresses(&self) -> Vec<String> {
        let mut all = vec![
            self.mock.clone(),
            self.nginx.clone(),
            self.nginx_http.clone(),
        ];
        all.extend(self.backends.iter().cloned());
        all
    }

    fn spawn(&mut self, name: &str, mut command: Command, graceful: bool) {
        let log = self.dir.join(format!("{name}.log"));
        let out = File::create(&log).unwrap_or_else(|e| panic!("cannot create {log:?}: {e}"));
        let err = out
            .try_clone()
            .unwrap_or_else(|e| panic!("cannot reopen {log:?}: {e}"));
        command
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .current_dir(&self.dir);
        let child = command
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e}"));
        self.processes.push(Spawned {
            name: name.to_owned(),
            child,
            graceful,
            log,
        });
    }

    /// Polls `GET path` until it answers `status`; fails early, with the
    /// process's log, when the process exits instead.
    fn wait_until_ready(&mut self, name: &str, addr: &str, path: &str, status: u16) {
        let deadline = Instant::now() + READY_WITHIN;
        loop {
            let process = self
                .processes
                .iter_mut()
                .find(|p| p.name == name)
                .unwrap_or_else(|| panic!("{name} was never started"));
            if let Ok(Some(status)) = process.child.try_wait() {
                let mut log = process.log_text();
                if name == "nginx" {
                    log += &std::fs::read_to_string(self.dir.join("error.log")).unwrap_or_default();
                }
                panic!("{name} exited ({status}) before it was ready:\n{log}");
            }
            if http_get(addr, path).is_ok_and(|(code, _)| code == status) {
                return;
            }
            if Instant::now() > deadline {
                panic!(
                    "{name} did not answer GET http://{addr}{path} within {READY_WITHIN:?}:\n{}",
                    process.log_text()
                );
            }
            std::thread::sleep(POLL_INTERVAL);
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        while let Some(process) = self.processes.pop() {
            drop(process);
        }
        if std::thread::panicking() {
            eprintln!("proxy test: logs kept in {}", self.dir.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// nginx from `PENSIVE_NGINX`, /usr/sbin/nginx or the PATH; a clear failure
/// (never a skip) when it is not installed.
fn nginx_binary() -> PathBuf {
    let chosen = std::env::var_os("PENSIVE_NGINX").map(PathBuf::from);
    let path_dirs = std::env::var_os("PATH").unwrap_or_default();
    let searched = std::iter::once(PathBuf::from("/usr/sbin"))
        .chain(std::env::split_paths(&path_dirs))
        .map(|dir| dir.join("nginx"));
    let mut candidates: Box<dyn Iterator<Item = PathBuf>> = match chosen {
        Some(path) => Box::new(std::iter::once(path)),
        None => Box::new(searched),
    };
    candidates
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| {
            panic!(
                "nginx not found (looked at PENSIVE_NGINX, else /usr/sbin and the PATH); this test runs Pensive behind it. \
                 Install it (Debian: apt-get install nginx) or set PENSIVE_NGINX to the binary."
            )
        })
}

/// A certificate for `localhost` and 127.0.0.1, signed by its own key (valid
/// two days; `CA:FALSE`, so TLS clients accept it as the server's own).
fn self_signed_certificate(certificate: &Path, key: &Path) {
    let status = Command::new("openssl")
        .args(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"])
        .args(["-nodes", "-days", "2", "-subj", "/CN=localhost"])
        .args(["-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"])
        .args(["-addext", "basicConstraints=critical,CA:FALSE"])
        .args(["-addext", "extendedKeyUsage=serverAuth"])
        .arg("-keyout")
        .arg(key)
        .arg("-out")
        .arg(certificate)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap_or_else(|e| {
            panic!("openssl is needed to make the test's TLS certificate (apt-get install openssl): {e}")
        });
    assert!(
        status.success(),
        "openssl could not make a certificate: {status}"
    );
}

/// The cookie key both backends share, as scaled-out processes must.
const COOKIE_SECRET: &str = "proxy-test-cookie-secret-0123456789abcdef";

/// `pensive serve` on `addr` with the mock as its only model, set up as
/// docs/security.md says for a deployment behind this nginx. The environment
/// is cleared so the developer's own PENSIVE_* or proxy settings cannot leak in.
fn backend_command(dir: &Path, addr: &str, models: &Path, token: Option<&str>) -> Command {
    let mut serve = Command::new(env!("CARGO_BIN_EXE_pensive"));
    serve
        .arg("serve")
        .env_clear()
        .env("LEPTOS_SITE_ADDR", addr)
        .env("LEPTOS_SITE_ROOT", dir.join("site"))
        .env("LEPTOS_ENV", "PROD")
        .env("PENSIVE_CONFIG", models)
        .env("MOCK_KEY", "sk-proxy-test")
        .env("PENSIVE_ALLOWED_HOSTS", "localhost")
        .env("PENSIVE_CLIENT_IP_HEADER", "x-forwarded-for")
        .env("PENSIVE_COOKIE_SECRET", COOKIE_SECRET)
        .env("RUST_LOG", "info");
    if let Some(token) = token {
        serve.env("PENSIVE_ACCESS_TOKEN", token);
    }
    serve
}

fn models_toml(mock: &str) -> String {
    format!(
        r#"[[models]]
id = "mock-responses"
label = "Mock (OpenAI Responses)"
provider = "responses"
base_url = "http://{mock}/v1"
api_key_env = "MOCK_KEY"
model = "mock-model"
"#
    )
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("cannot write {path:?}: {e}"));
}

/// A plain blocking `GET`: the status code and the body.
pub fn http_get(addr: &str, path: &str) -> std::io::Result<(u16, String)> {
    let mut stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(Duration::from_secs(2)))?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )?;
    let mut response = String::new();
    stream.read_to_string(&mut response)?;
    let status = response
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())
        .unwrap_or_default();
    Ok((status, body))
}

/// Processes whose parent is one of `parents` (from /proc/*/stat).
fn children_of(parents: &[u32]) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|stat| {
                    // "pid (name) state ppid ...": the name may contain spaces.
                    let after_name = stat.rsplit_once(')')?.1.to_owned();
                    after_name.split_whitespace().nth(1)?.parse::<u32>().ok()
                })
                .is_some_and(|ppid| parents.contains(&ppid))
        })
        .collect()
}
