//! Calendar arithmetic for statistics: UTC dates, weekday names and the data point `x` format.
//!
//! The calendar itself is the `time` crate's (the console's cookies need it anyway); this module
//! only fixes the day numbering (days since 1970-01-01, UTC) and the formats the interface decided.

use time::{Date, OffsetDateTime, PrimitiveDateTime};

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> i64 {
    let elapsed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX)
}

/// Milliseconds since the Unix epoch for stamping a new record (a DLQ entry's default
/// `createdAt`): never less than a value returned before in this process. When the wall clock
/// steps backwards (an NTP correction), a new entry would otherwise get an earlier `createdAt`
/// than the entries before it, and be the first a full DLQ evicts
/// (`docs/decisions.md#d13-retention-and-dlq-size`). Never used for rate-limit windows or retention
/// floors, which must follow the wall clock.
pub fn creation_ms() -> i64 {
    static LAST: std::sync::atomic::AtomicI64 = std::sync::atomic::AtomicI64::new(i64::MIN);
    not_before_last(&LAST, now_ms())
}

/// `wall`, or the largest value returned before if the clock went back.
fn not_before_last(last: &std::sync::atomic::AtomicI64, wall: i64) -> i64 {
    last.fetch_max(wall, std::sync::atomic::Ordering::SeqCst)
        .max(wall)
}

pub const MS_PER_DAY: i64 = 86_400_000;

/// 1970-01-01, day number 0 of the functions below.
const EPOCH: Date = time::macros::date!(1970 - 01 - 01);

/// The UTC date of day number `days` since 1970-01-01, held to the dates `time` represents
/// (years -9999 to 9999), which no clock reading leaves.
pub fn date_from_days(days: i64) -> Date {
    EPOCH
        .checked_add(time::Duration::days(days))
        .unwrap_or(if days < 0 { Date::MIN } else { Date::MAX })
}

/// Day number since 1970-01-01 of a date.
pub fn days_from_date(date: Date) -> i64 {
    (date - EPOCH).whole_days()
}

/// How many days the month of `date` has.
pub fn days_in_month(date: Date) -> u8 {
    date.month().length(date.year())
}

/// English weekday name of a day number (1970-01-01 was a Thursday).
pub fn weekday_name(days: i64) -> String {
    date_from_days(days).weekday().to_string()
}

/// `at` in UTC, or the nearest representable instant when it is beyond year 9999.
fn utc_instant(ms: i64) -> OffsetDateTime {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000).unwrap_or_else(|_| {
        if ms < 0 {
            PrimitiveDateTime::MIN.assume_utc()
        } else {
            PrimitiveDateTime::MAX.assume_utc()
        }
    })
}

/// The data point `x` format (`docs/decisions.md#d8-data-point-time`): `YYYY-MM-DD HH:MM:SS.mmm
/// +0000 UTC`.
pub fn format_x(ms: i64) -> String {
    const X: &[time::format_description::BorrowedFormatItem<'_>] = time::macros::format_description!(
        "[year]-[month]-[day] [hour]:[minute]:[second].[subsecond digits:3] +0000 UTC"
    );
    utc_instant(ms)
        .format(X)
        .expect("every field of X is in every instant")
}

/// `2025-10-23 17:34:05 UTC` of Unix milliseconds, for people (tables, the console); `None`
/// beyond the years `time` represents, where each caller shows the raw number instead.
pub fn utc_seconds(ms: i64) -> Option<String> {
    const SECONDS: &[time::format_description::BorrowedFormatItem<'_>] =
        time::macros::format_description!("[year]-[month]-[day] [hour]:[minute]:[second] UTC");
    let at = OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000).ok()?;
    at.format(SECONDS).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creation_times_never_go_back_when_the_wall_clock_does() {
        let last = std::sync::atomic::AtomicI64::new(i64::MIN);
        let stamped: Vec<i64> = [1_000, 2_000, 500, 1_500, 2_500]
            .into_iter()
            .map(|wall| not_before_last(&last, wall))
            .collect();
        assert_eq!(stamped, [1_000, 2_000, 2_000, 2_000, 2_500]);
    }

    #[test]
    fn formats_the_decided_data_point_time() {
        assert_eq!(format_x(0), "1970-01-01 00:00:00.000 +0000 UTC");
        // 2025-10-23 17:34:00 UTC, the example of `docs/decisions.md#d8-data-point-time`.
        assert_eq!(
            format_x(1_761_240_840_000),
            "2025-10-23 17:34:00.000 +0000 UTC"
        );
        assert_eq!(
            format_x(951_782_400_123),
            "2000-02-29 00:00:00.123 +0000 UTC"
        );
    }

    #[test]
    fn dates_round_trip_and_weekdays_are_right() {
        use time::macros::date;
        for days in [-1000, 0, 10_957, 11_016, 20_384, 40_000] {
            assert_eq!(days_from_date(date_from_days(days)), days);
        }
        assert_eq!(weekday_name(0), "Thursday");
        // 2025-10-23 was a Thursday; 2026-11-22 is a Sunday.
        assert_eq!(
            weekday_name(days_from_date(date!(2025 - 10 - 23))),
            "Thursday"
        );
        assert_eq!(
            weekday_name(days_from_date(date!(2026 - 11 - 22))),
            "Sunday"
        );
        assert_eq!(
            (
                days_in_month(date!(2024 - 02 - 01)),
                days_in_month(date!(2100 - 02 - 01)),
                days_in_month(date!(2000 - 02 - 01))
            ),
            (29, 28, 29)
        );
    }

    #[test]
    fn people_read_whole_seconds_in_utc() {
        assert_eq!(
            utc_seconds(1_761_240_845_999).as_deref(),
            Some("2025-10-23 17:34:05 UTC")
        );
        assert_eq!(utc_seconds(i64::MAX), None);
    }
}
