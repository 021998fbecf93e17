"""Reading the warehouse for people: the text report, figures, the results page."""
