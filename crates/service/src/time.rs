//! Calendar arithmetic for statistics: UTC dates, weekday names and the data point `x` format.
//!
//! Only what the statistics need (proleptic Gregorian, UTC), so the service carries no date crate.

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
/// than the entries before it, and be the first a full DLQ evicts (decision 13). Never used for
/// rate-limit windows or retention floors, which must follow the wall clock.
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

/// A UTC calendar date.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Date {
    pub year: i64,
    pub month: u32,
    pub day: u32,
}

/// The date of day number `days` since 1970-01-01 (Howard Hinnant's `civil_from_days`).
pub fn date_from_days(days: i64) -> Date {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    Date { year, month, day }
}

/// Day number since 1970-01-01 of a date (Howard Hinnant's `days_from_civil`).
pub fn days_from_date(date: Date) -> i64 {
    let year = date.year - i64::from(date.month <= 2);
    let era = year.div_euclid(400);
    let yoe = year.rem_euclid(400);
    let month = i64::from(date.month);
    let doy =
        (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + i64::from(date.day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

pub fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        _ => 28,
    }
}

/// English weekday name of a day number (1970-01-01 was a Thursday).
pub fn weekday_name(days: i64) -> &'static str {
    const NAMES: [&str; 7] = [
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
        "Monday",
        "Tuesday",
        "Wednesday",
    ];
    NAMES[days.rem_euclid(7) as usize]
}

/// The data point `x` format of decision 8: `YYYY-MM-DD HH:MM:SS.mmm +0000 UTC`.
pub fn format_x(ms: i64) -> String {
    let days = ms.div_euclid(MS_PER_DAY);
    let in_day = ms.rem_euclid(MS_PER_DAY);
    let Date { year, month, day } = date_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}.{:03} +0000 UTC",
        in_day / 3_600_000,
        in_day / 60_000 % 60,
        in_day / 1000 % 60,
        in_day % 1000
    )
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
        // 2025-10-23 17:34:00 UTC, the example of decision 8.
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
        for days in [-1000, 0, 10_957, 11_016, 20_384, 40_000] {
            assert_eq!(days_from_date(date_from_days(days)), days);
        }
        assert_eq!(weekday_name(0), "Thursday");
        // 2025-10-23 was a Thursday; 2026-11-22 is a Sunday.
        assert_eq!(
            weekday_name(days_from_date(Date {
                year: 2025,
                month: 10,
                day: 23
            })),
            "Thursday"
        );
        assert_eq!(
            weekday_name(days_from_date(Date {
                year: 2026,
                month: 11,
                day: 22
            })),
            "Sunday"
        );
        assert_eq!(
            (
                days_in_month(2024, 2),
                days_in_month(2100, 2),
                days_in_month(2000, 2)
            ),
            (29, 28, 29)
        );
    }
}
