-- The target's load around each measured repetition (raw.repetition_load, from the archive's
-- load.txt): the 1-minute load average read right before the timed step starts and right after
-- it ends, and the target's online CPUs.
select
    study,
    campaign,
    environment,
    cell_key,
    repetition,
    cores,
    load1_before,
    load1_after
from {{ source('raw', 'repetition_load') }}
