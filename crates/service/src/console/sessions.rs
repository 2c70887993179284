//! The console's sessions: random ids with an expiry, in memory on a store of one process (a
//! restart signs everyone out), in the store when several processes share it (a sign-in through
//! one holds on all). Nothing secret is derived from the cookie.

use super::auth::SESSION_LIFETIME;
use super::viewer::Viewer;
use crate::account::random_secret;
use courier_server::auth::constant_time_eq;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

struct Session {
    csrf: String,
    expires: Instant,
    /// The management key at login: a rotated key ends the session.
    management_key: String,
    /// A one-time notice for the next page ("3 entries deleted").
    flash: Option<String>,
}

/// The open sessions, by id: in memory, or in the store when other processes share it.
#[derive(Default)]
pub(super) struct Sessions {
    here: Mutex<HashMap<String, Session>>,
    shared: Option<Arc<crate::api::Service>>,
}

impl Sessions {
    /// The sessions of `service`'s console: in its store when other processes share it.
    pub(super) fn of(service: &Arc<crate::api::Service>) -> Sessions {
        Sessions {
            here: Mutex::default(),
            shared: service.store().shared().then(|| service.clone()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Session>> {
        self.here
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Opens a session; returns its id, or `None` when the shared store failed.
    pub(super) async fn open(&self, management_key: &str) -> Option<String> {
        let Some(service) = &self.shared else {
            return Some(self.open_here(management_key));
        };
        let id = random_secret(32);
        let session = crate::store::ConsoleSession {
            csrf: random_secret(32),
            expires_at_ms: crate::time::now_ms() + SESSION_LIFETIME.as_millis() as i64,
            management_key: management_key.to_owned(),
        };
        let key = id.clone();
        let saved = service
            .blocking(move |store| {
                store.save_console_session(&key, &session, crate::time::now_ms())
            })
            .await;
        match saved {
            Ok(()) => Some(id),
            Err(error) => {
                tracing::error!(%error, "saving a console session failed");
                None
            }
        }
    }

    /// The viewer of a live session with this id, while the management key is unchanged.
    pub(super) async fn find(&self, id: &str, management_key: &str) -> Option<Viewer> {
        let Some(service) = &self.shared else {
            return self.find_here(id, management_key);
        };
        let key = id.to_owned();
        let session = service
            .blocking(move |store| store.console_session(&key, crate::time::now_ms()))
            .await
            .unwrap_or_else(|error| {
                tracing::error!(%error, "reading a console session failed");
                None
            })?;
        constant_time_eq(&session.management_key, management_key).then(|| Viewer::Session {
            id: id.to_owned(),
            csrf: session.csrf,
        })
    }

    pub(super) async fn close(&self, id: &str) {
        match &self.shared {
            None => self.close_here(id),
            Some(service) => {
                let id = id.to_owned();
                if let Err(error) = service
                    .blocking(move |store| store.end_console_session(&id))
                    .await
                {
                    tracing::error!(%error, "ending a console session failed");
                }
            }
        }
    }

    /// Leaves a one-time notice for the viewer's next page.
    pub(super) async fn set_flash(&self, viewer: &Viewer, message: String) {
        let Viewer::Session { id, .. } = viewer else {
            return;
        };
        match &self.shared {
            None => self.set_flash_here(id, message),
            Some(service) => {
                let id = id.clone();
                let _ = service
                    .blocking(move |store| store.swap_console_flash(&id, Some(&message)))
                    .await;
            }
        }
    }

    /// The viewer's one-time notice, taken.
    pub(super) async fn take_flash(&self, viewer: &Viewer) -> Option<String> {
        let Viewer::Session { id, .. } = viewer else {
            return None;
        };
        match &self.shared {
            None => self.take_flash_here(id),
            Some(service) => {
                let id = id.clone();
                service
                    .blocking(move |store| store.swap_console_flash(&id, None))
                    .await
                    .ok()
                    .flatten()
            }
        }
    }

    /// Opens a session in memory; returns its id. Expired sessions are dropped here, so the map
    /// only grows with live ones.
    pub(super) fn open_here(&self, management_key: &str) -> String {
        let now = Instant::now();
        let id = random_secret(32);
        let mut sessions = self.lock();
        sessions.retain(|_, session| session.expires > now);
        sessions.insert(
            id.clone(),
            Session {
                csrf: random_secret(32),
                expires: now + SESSION_LIFETIME,
                management_key: management_key.to_owned(),
                flash: None,
            },
        );
        id
    }

    pub(super) fn find_here(&self, id: &str, management_key: &str) -> Option<Viewer> {
        let mut sessions = self.lock();
        let session = sessions.get(id)?;
        if session.expires <= Instant::now()
            || !constant_time_eq(&session.management_key, management_key)
        {
            sessions.remove(id);
            return None;
        }
        Some(Viewer::Session {
            id: id.to_owned(),
            csrf: session.csrf.clone(),
        })
    }

    fn close_here(&self, id: &str) {
        self.lock().remove(id);
    }

    fn set_flash_here(&self, id: &str, message: String) {
        if let Some(session) = self.lock().get_mut(id) {
            session.flash = Some(message);
        }
    }

    fn take_flash_here(&self, id: &str) -> Option<String> {
        self.lock().get_mut(id)?.flash.take()
    }
}
