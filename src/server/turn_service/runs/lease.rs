//! Leases on running turns (with `PENSIVE_REDIS_URL`): the replica that
//! runs a turn keeps a key with a short TTL alive while it runs
//! (`store::redis`); every replica looks at the running turns' leases every
//! few seconds (`store::redis::watch_leases`), and a turn whose lease is found lapsed on two checks in a
//! row (its replica died; the second look leaves a replica that just got
//! Redis back the time to renew it) gets a terminal `error` in its shared
//! log, so its readers anywhere learn it within about 8 s of the death: the
//! TTL, then two checks.

use std::time::Duration;

/// How long a lease lives without a refresh.
pub(crate) const LEASE_TTL: Duration = Duration::from_secs(4);
/// How often the running replica refreshes its leases.
pub(crate) const LEASE_REFRESH: Duration = Duration::from_secs(1);
/// How often every replica checks the running turns' leases.
pub(crate) const LEASE_CHECK: Duration = Duration::from_secs(2);
