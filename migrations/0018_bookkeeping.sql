-- The business's bookkeeping (issue 20): `single` or `double` entry. NULL follows the dealer type
-- (double for company and ngo, single otherwise). The ledger is kept for every business; B100/B110
-- records go into its OPENFRMT export when the bookkeeping is double.
ALTER TABLE businesses ADD COLUMN bookkeeping text CHECK (bookkeeping IN ('single', 'double'));
