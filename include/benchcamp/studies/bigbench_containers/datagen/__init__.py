"""The project's own BigBench data generator: all 23 tables as `|`-separated text files.

Written for this project from the table list and the query descriptions (no code, word list or
generator of the public BigBench kit is used). ``writing.generate(data_dir, scale_factor_gb, seed)``
writes ``<data_dir>/<table>/part-NNNNN.dat`` for every table of `schema.TABLES`, in the layout
`schema` describes: fields separated by ``|``, rows ending in ``\\n``, NULL as ``\\N``, dates
``YYYY-MM-DD``, decimals with 2 places. Same scale factor and seed give byte-identical files:
every value comes from a counter-based hash of (seed, table, stream, row key), and a big table
is cut into files of `writing.PART_KEYS` tickets, orders or sessions, so nothing depends on the
number of worker processes or on timing. Rows are rendered with numpy (digits four at a time from
tables, packed into 8-byte words, the padding dropped once per chunk): about 250 MB/s on 2 cores
here, a tenth of a plain write of the same bytes (`benchmarks/bigbench_datagen.py`).

Sizes: the scale factor SF is GB (10^9 bytes) of text. Fact tables grow linearly with SF,
dimensions sub-linearly (square root or so) with minimums that keep SF 0.001 meaningful;
`scaling.estimate_bytes` predicts the total (within a few % for SF >= 0.1),
`scaling.check_free_space` refuses before writing anything when the disk cannot hold it with a
margin.

What the data holds, so that all 30 queries find something even at SF 0.01 (the constants are
in `parameters.DATA_PARAMETERS`, stable: queries/params.yaml picks its values from them):

* Dates: activity from 2000-01-01 to 2004-12-31; date_dim covers 1999-01-01..2005-12-31 (returns
  and shipments run past the last sale); ``d_date_sk`` is the Julian day number (2000-01-01 is
  2451545) as in TPC-DS. time_dim has one row per second, ``t_time_sk`` = seconds since midnight.
* Items: ``i_category_id = (i_item_sk - 1) % 10 + 1`` with TPC-DS's 10 category names. Low
  ``i_item_sk`` are the most popular (bought, viewed, reviewed and returned most). Items with
  ``i_item_sk % 7 == 3`` change their price on 2002-06-01: x1.25 when ``(i_item_sk // 7)`` is even,
  x0.8 when odd; ``i_current_price`` is the price after the change, sales before it use the old
  price, quantities sold and inventory move the other way, and their competitors' prices in
  item_marketprices change on the same date.
* Baskets: a store ticket has 1..12 lines, a web order 1..8, all different items close in
  ``i_item_sk`` (so the same pairs co-occur often). Tickets and orders are numbered in date
  order. Every 7th ticket (ticket_number % 7 == 1) has its first line returned within 150 days;
  other lines are returned at random (store about 1 in 12, web 1 in 10), always on the same
  ticket/order and item, after the sale.
* Customers buy in both channels (the same customers are the most active in both); from mid-2000
  on, web orders with ws_order_number % 5 == 1 re-buy online the item their customer returned
  to a store 180..539 days earlier (same customer, same item), so store purchases in one year
  are followed by web purchases the next.
* Clickstreams: a session is one user's clicks within a day, at most 180 s apart; session
  starts are random over the day, so a user's sessions are usually hours or days apart (a gap
  of more than an hour separates them; rarely two sessions of a user on one day merge). Three
  kinds: a session before every web order
  (views, often a 'review' page, then one click per ordered item on an 'order' page with
  ``wcs_sales_sk`` = the ws_order_number), browse sessions (one in three abandoned on an
  'order' page without a sale; one in ten anonymous, NULL user), and views by a customer 1..30
  days before a store ticket of the items bought there. Page types: ``wp_type`` of page sk is
  ``WEB_PAGE_TYPES[(wp_web_page_sk - 1) % 9]``.
* Reviews: about one web order line in five (``pr_review_sk = pr_order_sk * 10 + line``, line
  0..7 within the order), by the buyer, 3..62 days after the order, rating
  1..5 driven by the item (some items mostly bad, some mostly good), text made of 2..5
  sentences from our word lists in ``words/`` (positive and negative words, neutral filler,
  competitor names that are also ``imp_competitor`` values, store names of ``s_store_name``).
* Prices: an item's price before the change is 1.00..299.99 (uniform), wholesale cost 40..80 %
  of it, sales price 0..30 % below list price; quantities 1..100 per line (up to 70 after a
  price rise, up to 130 after a cut).
* item_marketprices: 3 competitors per item, each with a price before and after a change date
  (the price-change date for the changing items, another date for the rest).
* Inventory: weekly (every 7 days from 2000-01-01) per item and warehouse; per item and
  warehouse the quantity is steady, variable or lumpy (mostly low with rare big restocks), so
  the coefficient of variation over a month ranges from about 0.1 to above 1.5.

CLI: ``python -m benchcamp.studies.bigbench_containers.datagen --data-dir D --scale-factor SF --seed N``.

Modules, each depending only on those above it: `parameters` (the facts above and the word
lists), `scaling` (row counts, size estimate, free-space check), `streams` (counter-based random
numbers), `rendering` (numpy fields to `|`-separated text), `model` (items, customers, tickets
and orders every table shares), `facts` and `dimensions` (the tables), `writing` (files, worker
processes, `generate`, the CLI). Importers use the module that defines a name.
"""
