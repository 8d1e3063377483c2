//! Connections per client address (`PENSIVE_MAX_CONNECTIONS_PER_ADDRESS`).
//! `PENSIVE_MAX_CONNECTIONS` bounds the server as a whole; without a share
//! per address, one client that opens that many connections and keeps them
//! busy (slow bodies, unread turns) locks everyone else out until its
//! timeouts run. Counted by the connection's own address, since a proxy's
//! header is not read yet when a connection is accepted.
//!
//! IPv6 addresses count per /64: one host usually holds a whole /64, so
//! counting single addresses would give it billions of shares.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

/// Open connections per address; shared by the serve loop's connections.
#[derive(Debug, Clone)]
pub(crate) struct AddressSlots {
    /// Connections one address may hold at once (0: no limit).
    limit: usize,
    open: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

/// One accepted connection's place in its address's share; freed on drop.
#[derive(Debug)]
pub(crate) struct AddressSlot {
    slots: AddressSlots,
    address: IpAddr,
}

impl AddressSlots {
    pub fn new(limit: usize) -> Self {
        Self {
            limit,
            open: Arc::default(),
        }
    }

    /// A slot for a connection from `peer`, or `None` when its address
    /// already holds its share.
    pub(crate) fn enter(&self, peer: IpAddr) -> Option<AddressSlot> {
        let address = super::client::share_of(peer);
        // A poisoned lock means a panic while counting; refusing everyone
        // would be worse than not counting.
        let mut open = self
            .open
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let count = open.entry(address).or_default();
        if self.limit > 0 && *count >= self.limit {
            return None;
        }
        *count += 1;
        Some(AddressSlot {
            slots: self.clone(),
            address,
        })
    }

    /// Addresses with a connection open (entries do not outlive their
    /// connections).
    #[cfg(test)]
    pub(crate) fn tracked_addresses(&self) -> usize {
        self.open.lock().map(|open| open.len()).unwrap_or(0)
    }
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        let mut open = self
            .slots
            .open
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(count) = open.get_mut(&self.address) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                open.remove(&self.address);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("an address")
    }

    #[test]
    fn an_address_gets_its_share_and_no_more_while_others_still_get_in() {
        let slots = AddressSlots::new(2);
        let first = slots.enter(ip("203.0.113.1")).expect("first");
        let _second = slots.enter(ip("203.0.113.1")).expect("second");
        assert!(slots.enter(ip("203.0.113.1")).is_none(), "over its share");
        assert!(slots.enter(ip("203.0.113.2")).is_some(), "another address");
        drop(first);
        assert!(
            slots.enter(ip("203.0.113.1")).is_some(),
            "a closed connection frees its place"
        );
    }

    #[test]
    fn an_ipv6_host_counts_as_its_slash_64_and_mapped_ipv4_as_itself() {
        let slots = AddressSlots::new(1);
        let _held = slots.enter(ip("2001:db8:1:2::1")).expect("first");
        assert!(slots.enter(ip("2001:db8:1:2:ffff::9")).is_none());
        assert!(slots.enter(ip("2001:db8:1:3::1")).is_some());
        let _v4 = slots.enter(ip("198.51.100.7")).expect("v4");
        assert!(slots.enter(ip("::ffff:198.51.100.7")).is_none());
    }

    #[test]
    fn closed_connections_leave_no_entry_and_zero_means_no_limit() {
        let slots = AddressSlots::new(0);
        let held: Vec<_> = (0..100)
            .map(|_| slots.enter(ip("192.0.2.1")).expect("no limit"))
            .collect();
        assert_eq!(slots.tracked_addresses(), 1);
        drop(held);
        assert_eq!(slots.tracked_addresses(), 0);
    }
}
