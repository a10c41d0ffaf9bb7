"""Knowledge-Update (our sixth dataset): attributes that a later statement either replaces
or adds to.

The same attribute can take either kind of update, so the question ("which instruments
does my cousin Tariq play these days?") does not give the kind away; only the wording of
the later statement does: "gave up the cello and switched to the piano" (overwrite) versus
"has also started playing the piano" (addition). {S} is the subject ("my cousin Tariq"),
{v} the new value, {old} the earlier one.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Attribute:
    name: str
    values: tuple[str, ...]
    originals: tuple[str, ...]
    #: (template, the span that says the earlier value is over)
    overwrites: tuple[tuple[str, str], ...]
    additions: tuple[str, ...]
    questions: tuple[str, ...]


ATTRIBUTES: tuple[Attribute, ...] = (
    Attribute(
        "instrument",
        ("cello", "piano", "trumpet", "violin", "flute", "drums", "saxophone", "ukulele", "harp", "clarinet"),
        ("{S} plays the {v}.", "{S} has been playing the {v} for years."),
        (
            ("{S} gave up the {old} and switched to the {v}.", "gave up the {old}"),
            ("These days the {v} is the only instrument {S} plays.", "the only instrument"),
            ("{S} sold {pos} {old} and now plays the {v} instead.", "sold {pos} {old}"),
        ),
        (
            "{S} has also started playing the {v}.",
            "On top of everything else, {S} now plays the {v} too.",
            "{S} picked up the {v} as well.",
        ),
        ("Which instruments does {S} play these days?", "What does {S} play now, instrument-wise?"),
    ),
    Attribute(
        "language",
        ("Italian", "Japanese", "Greek", "Finnish", "Swahili", "Dutch", "Korean", "Polish", "Turkish", "Hindi"),
        ("{S} is learning {v}.", "{S} takes {v} lessons twice a week."),
        (
            ("{S} dropped {old} and is now learning {v} instead.", "dropped {old}"),
            ("{v} is the only language {S} is studying now.", "the only language"),
            ("{S} stopped the {old} lessons and signed up for {v}.", "stopped the {old} lessons"),
        ),
        (
            "{S} has started learning {v} as well.",
            "{S} is also taking {v} lessons now.",
            "In addition, {S} now studies {v} too.",
        ),
        ("Which languages is {S} learning at the moment?", "What languages is {S} studying these days?"),
    ),
    Attribute(
        "pet",
        ("parrot", "rabbit", "tortoise", "ferret", "cat", "dog", "hamster", "iguana", "guinea pig", "goldfish"),
        ("{S} has a {v}.", "{S} looks after a pet {v}."),
        (
            ("{S} rehomed {pos} {old} and got a {v}.", "rehomed {pos} {old}"),
            ("The only pet {S} has now is a {v}.", "the only pet"),
            ("{S} no longer has the {old}; it's just a {v} now.", "no longer has the {old}"),
        ),
        ("{S} adopted a {v} too.", "{S} also has a {v} now.", "On top of that, {S} brought home a {v} as well."),
        ("What pets does {S} have now?", "Which animals live with {S} these days?"),
    ),
    Attribute(
        "sport",
        (
            "tennis",
            "hockey",
            "rugby",
            "volleyball",
            "netball",
            "squash",
            "cricket",
            "handball",
            "lacrosse",
            "badminton",
        ),
        ("{S} plays {v} at the weekend.", "{S} is on a {v} team."),
        (
            ("{S} quit {old} and took up {v} instead.", "quit {old}"),
            ("{v} is the only sport {S} plays now.", "the only sport"),
            ("{S} stopped playing {old} and now plays {v}.", "stopped playing {old}"),
        ),
        (
            "{S} joined a {v} team as well.",
            "{S} has also taken up {v}.",
            "Besides everything else, {S} now plays {v} too.",
        ),
        ("Which sports does {S} play now?", "What sports is {S} into these days?"),
    ),
    Attribute(
        "workplace",
        (
            "bakery",
            "bookshop",
            "hospital",
            "garden centre",
            "post office",
            "brewery",
            "library",
            "bike shop",
            "cinema",
            "vet clinic",
        ),
        ("{S} works at the {v}.", "{S} has a job at the {v}."),
        (
            ("{S} left the {old} and now works at the {v}.", "left the {old}"),
            ("The only job {S} has now is at the {v}.", "the only job"),
            ("{S} quit the {old}; {pr} works at the {v} now.", "quit the {old}"),
        ),
        (
            "{S} also picked up weekend shifts at the {v}.",
            "{S} now works part-time at the {v} too.",
            "{S} took a second job at the {v} as well.",
        ),
        ("Where does {S} work these days?", "Which places does {S} work at now?"),
    ),
    Attribute(
        "vehicle",
        (
            "camper van",
            "motorbike",
            "hatchback",
            "pickup truck",
            "electric scooter",
            "convertible",
            "estate car",
            "minibus",
            "vintage Beetle",
            "cargo bike",
        ),
        ("{S} drives a {v}.", "{S} gets around in a {v}."),
        (
            ("{S} sold {pos} {old} and bought a {v}.", "sold {pos} {old}"),
            ("The only vehicle {S} owns now is a {v}.", "the only vehicle"),
            ("{S} got rid of the {old} and replaced it with a {v}.", "got rid of the {old}"),
        ),
        ("{S} bought a {v} as well.", "{S} also owns a {v} now.", "{S} added a {v} to the driveway too."),
        ("What vehicles does {S} have now?", "What does {S} drive these days?"),
    ),
    Attribute(
        "club",
        (
            "chess club",
            "rowing club",
            "film society",
            "choir",
            "hiking group",
            "book club",
            "astronomy society",
            "debating society",
            "photography club",
            "quiz team",
        ),
        ("{S} is a member of the {v}.", "{S} belongs to the {v}."),
        (
            (
                "{S} cancelled {pos} membership of the {old} and joined the {v}.",
                "cancelled {pos} membership of the {old}",
            ),
            ("The {v} is the only club {S} belongs to now.", "the only club"),
            ("{S} left the {old} and joined the {v} instead.", "left the {old}"),
        ),
        ("{S} joined the {v} too.", "{S} is also a member of the {v} now.", "{S} signed up for the {v} as well."),
        ("Which clubs does {S} belong to now?", "What groups is {S} a member of these days?"),
    ),
    Attribute(
        "home",
        ("Lisbon", "Porto", "Leeds", "Bristol", "Lyon", "Ghent", "Krakow", "Bergen", "Seville", "Tallinn"),
        ("{S} lives in {v}.", "{S} has a flat in {v}."),
        (
            ("{S} moved out of {old} and now lives in {v}.", "moved out of {old}"),
            ("{S} no longer lives in {old}; {pr} moved to {v}.", "no longer lives in {old}"),
            ("{v} is the only place {S} calls home now.", "the only place"),
        ),
        (
            "{S} now also keeps a second flat in {v}.",
            "{S} splits {pos} time and has a place in {v} as well.",
            "{S} bought a little apartment in {v} too.",
        ),
        ("Where does {S} live now?", "Which cities does {S} have a home in these days?"),
    ),
    Attribute(
        "craft",
        (
            "pottery",
            "knitting",
            "woodturning",
            "embroidery",
            "origami",
            "bookbinding",
            "mosaics",
            "weaving",
            "calligraphy",
            "glassblowing",
        ),
        ("{S} does {v} in the evenings.", "{S} has taken {v} seriously for a while."),
        (
            ("{S} stopped doing {old} and spends evenings on {v} instead.", "stopped doing {old}"),
            ("{v} is the only craft {S} does now.", "the only craft"),
            ("{S} gave up {old} to make room for {v}.", "gave up {old}"),
        ),
        ("{S} has also got into {v}.", "{S} does {v} as well now.", "Alongside everything else, {S} took up {v} too."),
        ("What crafts does {S} do these days?", "Which crafts is {S} busy with now?"),
    ),
    Attribute(
        "course",
        (
            "accounting",
            "philosophy",
            "marine biology",
            "web design",
            "art history",
            "nutrition",
            "statistics",
            "architecture",
            "psychology",
            "criminology",
        ),
        ("{S} is taking a course in {v}.", "{S} enrolled in a {v} course."),
        (
            ("{S} dropped the {old} course and is now taking {v} instead.", "dropped the {old} course"),
            ("{v} is the only course {S} is taking now.", "the only course"),
            ("{S} withdrew from {old} and switched to {v}.", "withdrew from {old}"),
        ),
        ("{S} has signed up for a {v} course as well.", "{S} is also studying {v} now.", "{S} added a {v} course too."),
        ("Which courses is {S} taking now?", "What is {S} studying at the moment?"),
    ),
)
#: relation words whose pronoun is fixed
GENDERED_RELATIONS = {
    "my sister": "she",
    "my aunt": "she",
    "my niece": "she",
    "my brother": "he",
    "my uncle": "he",
    "my nephew": "he",
    "my godson": "he",
}
