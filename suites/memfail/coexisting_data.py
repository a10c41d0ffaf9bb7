"""The 100 preference categories of Coexisting-Facts in 12 groups (paper B.4, Table 4).

Each category has the noun a question asks about and the preferences a row draws from.
Preferences are distinct across categories (no one is a word span of another), so a stored
statement names exactly one preference of exactly one category.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Category:
    name: str
    group: str
    noun: str
    items: tuple[str, ...]


def _group(group: str, rows: tuple[tuple[str, str, str], ...]) -> list[Category]:
    return [Category(name, group, noun, tuple(i.strip() for i in items.split(";"))) for name, noun, items in rows]


CATEGORIES: tuple[Category, ...] = tuple(
    _group(
        "food and drink",
        (
            ("foods", "dishes", "pizza; sushi; lasagne; paella; falafel; dumplings"),
            (
                "cuisines",
                "cuisines",
                "Thai food; Ethiopian food; Mexican food; Greek food; Lebanese food; Peruvian food",
            ),
            (
                "types of desserts",
                "desserts",
                "tiramisu; cheesecake; baklava; panna cotta; apple strudel; mochi ice cream",
            ),
            ("drinks", "drinks", "lemonade; kombucha; ginger ale; horchata; coconut water; iced hibiscus"),
            ("coffee types", "coffee orders", "flat white; cortado; cold brew; espresso; cappuccino; macchiato"),
            ("tea varieties", "teas", "oolong; sencha; rooibos; chai; Earl Grey; chamomile"),
            (
                "breakfast foods",
                "breakfast options",
                "pancakes; shakshuka; granola; eggs Benedict; avocado toast; porridge",
            ),
            ("street foods", "street foods", "tacos al pastor; banh mi; arepas; samosas; crepes; kebabs"),
            ("snack types", "snacks", "popcorn; trail mix; rice crackers; beef jerky; roasted chickpeas; pretzels"),
            ("cocktail types", "cocktails", "negroni; mojito; old fashioned; margarita; paloma; daiquiri"),
            (
                "cooking methods",
                "ways of cooking",
                "grilling; braising; stir-frying; slow roasting; steaming; sous vide",
            ),
            (
                "restaurant types",
                "places to eat out",
                "tapas bars; noodle bars; izakayas; food trucks; trattorias; diners",
            ),
        ),
    )
    + _group(
        "entertainment and media",
        (
            ("music genres", "kinds of music", "jazz; bossa nova; synth-pop; bluegrass; reggae; Afrobeat"),
            (
                "types of movies",
                "movies",
                "film noir; romantic comedies; heist movies; westerns; animated films; monster movies",
            ),
            (
                "book genres",
                "books",
                "fantasy novels; historical fiction; cozy mysteries; science fiction; graphic novels; literary fiction",
            ),
            (
                "tv show genres",
                "TV shows",
                "sitcoms; baking competitions; crime dramas; reality shows; period dramas; medical dramas",
            ),
            (
                "video game genres",
                "video games",
                "platformers; roguelikes; racing games; puzzle games; open-world RPGs; rhythm games",
            ),
            (
                "podcast topics",
                "podcast topics",
                "true crime; space exploration; unsolved mysteries; celebrity interviews; etymology; ancient history",
            ),
            ("comedy styles", "kinds of comedy", "stand-up; improv; satire; sketch comedy; dark humour; slapstick"),
            (
                "documentary subjects",
                "documentaries",
                "deep-sea creatures; space missions; famous heists; food history; wildlife; polar expeditions",
            ),
            (
                "types of concerts",
                "concerts",
                "orchestra concerts; open-air festivals; acoustic sets; choir performances; DJ sets; stadium tours",
            ),
            (
                "types of museums",
                "museums",
                "science museums; art galleries; natural history museums; maritime museums; toy museums; design museums",
            ),
            ("sports to watch on TV", "sports to watch", "Formula 1; snooker; rugby; darts; sumo; the Tour de France"),
            (
                "types of theater",
                "shows at the theatre",
                "musicals; puppet shows; Shakespeare plays; immersive theatre; pantomimes; cabaret",
            ),
        ),
    )
    + _group(
        "physical activity",
        (
            ("sports", "sports to play", "tennis; badminton; volleyball; basketball; ultimate frisbee; squash"),
            (
                "outdoor activities",
                "outdoor activities",
                "kayaking; rock climbing; paddleboarding; geocaching; fishing; birdwatching",
            ),
            ("physical exercises", "exercises", "deadlifts; pull-ups; kettlebell swings; burpees; lunges; planks"),
            ("fitness class types", "fitness classes", "Pilates; Zumba; CrossFit; barre; HIIT; aqua aerobics"),
            ("martial arts styles", "martial arts", "judo; karate; Brazilian jiu-jitsu; Muay Thai; taekwondo; aikido"),
            ("dance styles", "dance styles", "salsa; tango; hip-hop; flamenco; ballroom; contemporary dance"),
            (
                "cycling types",
                "kinds of cycling",
                "mountain biking; road cycling; BMX; gravel riding; bike touring; track cycling",
            ),
            (
                "swimming styles",
                "swimming strokes",
                "butterfly stroke; backstroke; breaststroke; open-water swimming; front crawl; sidestroke",
            ),
            ("types of yoga", "yoga styles", "vinyasa flow; yin yoga; hot yoga; restorative yoga; Ashtanga; kundalini"),
            (
                "hiking styles",
                "hikes",
                "thru-hiking; ridge walks; summit scrambles; forest trails; coastal walks; night hikes",
            ),
        ),
    )
    + _group(
        "lifestyle and personal style",
        (
            (
                "fashion styles",
                "clothing styles",
                "streetwear; preppy outfits; bohemian outfits; minimalist basics; athleisure; tailored suits",
            ),
            (
                "home decor styles",
                "decor styles",
                "Scandinavian decor; mid-century modern; farmhouse style; Japandi; maximalist decor; coastal decor",
            ),
            (
                "makeup styles",
                "makeup looks",
                "winged eyeliner; bold red lips; no-makeup makeup; glitter eyeshadow; smoky eyes; bronzed cheeks",
            ),
            (
                "jewelry types",
                "jewellery",
                "hoop earrings; signet rings; pearl necklaces; charm bracelets; anklets; brooches",
            ),
            ("shoe styles", "shoes", "loafers; Chelsea boots; sneakers; espadrilles; Mary Janes; brogues"),
            (
                "hair care styles",
                "hair routines",
                "hair oiling; protective braids; blowouts; air drying; deep conditioning; scalp massages",
            ),
            (
                "skincare routines",
                "skincare steps",
                "double cleansing; retinol serums; sheet masks; SPF moisturiser; facial rollers; clay masks",
            ),
            ("bag styles", "bags", "tote bags; backpacks; crossbody bags; messenger bags; bum bags; clutch purses"),
            ("hat styles", "hats", "fedoras; beanies; bucket hats; berets; flat caps; sun visors"),
        ),
    )
    + _group(
        "travel and places",
        (
            ("travel destinations", "places to travel", "Kyoto; Lisbon; Marrakech; Vancouver; Cape Town; Hanoi"),
            (
                "vacation types",
                "kinds of holidays",
                "road trips; cruises; city breaks; ski trips; beach resorts; cabin retreats",
            ),
            (
                "nature environments",
                "kinds of scenery",
                "deserts; rainforests; alpine meadows; fjords; wetlands; volcanic islands",
            ),
            (
                "city neighborhood types",
                "neighbourhoods",
                "old town quarters; artsy districts; waterfront promenades; university areas; Chinatowns; leafy suburbs",
            ),
            (
                "outdoor dining settings",
                "places to eat outside",
                "rooftop terraces; beer gardens; sidewalk cafes; beach shacks; riverside decks; courtyard patios",
            ),
        ),
    )
    + _group(
        "hobbies and creativity",
        (
            ("hobbies", "hobbies", "model railways; bread baking; astronomy; calligraphy; woodworking; beekeeping"),
            ("crafts", "crafts", "knitting; pottery; embroidery; macrame; quilting; candle making"),
            ("art styles", "art", "impressionism; cubism; street art; watercolour landscapes; Art Nouveau; pop art"),
            (
                "photography styles",
                "kinds of photography",
                "street photography; macro photography; portrait photography; film photography; astrophotography; drone photography",
            ),
            (
                "creative writing styles",
                "kinds of writing",
                "flash fiction; sonnets; screenwriting; personal essays; fan fiction; limericks",
            ),
            ("musical instruments", "instruments", "cello; ukulele; drums; banjo; clarinet; harp"),
            (
                "types of puzzles",
                "puzzles",
                "jigsaw puzzles; crosswords; sudoku; logic grids; Rubik's cubes; escape rooms",
            ),
            (
                "journaling styles",
                "journaling styles",
                "bullet journaling; gratitude journaling; morning pages; travel journals; art journaling; dream journals",
            ),
            (
                "home improvement projects",
                "home projects",
                "refinishing furniture; laying floorboards; building bookshelves; retiling the bathroom; installing smart lights; restoring old windows",
            ),
            (
                "garden types",
                "gardens",
                "vegetable patches; rock gardens; herb spirals; wildflower meadows; moss gardens; rose gardens",
            ),
            (
                "houseplants",
                "plants for the flat",
                "monstera; snake plants; pothos; fiddle-leaf figs; orchids; calatheas",
            ),
        ),
    )
    + _group(
        "social and leisure",
        (
            (
                "weekend activities",
                "weekend plans",
                "farmers markets; flea markets; pub quizzes; long lie-ins; movie marathons; antique hunting",
            ),
            (
                "party activities",
                "party games",
                "karaoke; charades; murder mystery games; photo booths; dance-offs; pinata",
            ),
            (
                "dating activities",
                "date ideas",
                "cooking classes; stargazing; mini golf; wine tasting; paint and sip nights; arcade nights",
            ),
            (
                "types of social gatherings",
                "get-togethers",
                "potlucks; barbecues; book clubs; supper clubs; garden parties; dinner parties",
            ),
            ("board games", "board games", "Catan; Scrabble; Ticket to Ride; Codenames; Pandemic; Carcassonne"),
            ("card games", "card games", "poker; rummy; bridge; cribbage; Uno; solitaire"),
            (
                "conversation topics",
                "things to talk about",
                "philosophy; urban planning; linguistics; ghost stories; climate policy; family history",
            ),
        ),
    )
    + _group(
        "tech and learning",
        (
            ("programming languages", "programming languages", "Rust; Python; Haskell; Elixir; Kotlin; TypeScript"),
            (
                "tech interests",
                "tech topics",
                "robotics; 3D printing; home automation; retro computing; virtual reality; mechanical keyboards",
            ),
            (
                "academic subjects",
                "subjects",
                "medieval history; organic chemistry; economics; psychology; marine biology; statistics",
            ),
            (
                "skills to learn",
                "skills",
                "public speaking; sailing; first aid; lock picking; touch typing; bookkeeping",
            ),
            ("languages to learn", "languages", "Japanese; Portuguese; Swahili; Icelandic; Arabic; Welsh"),
            (
                "language learning methods",
                "ways to learn a language",
                "flashcard apps; language exchanges; immersion trips; grammar drills; shadowing exercises; pen pals",
            ),
            (
                "study techniques",
                "study methods",
                "spaced repetition; the Feynman technique; practice tests; mind maps; study groups; active recall",
            ),
            (
                "note-taking methods",
                "note-taking methods",
                "Cornell notes; Zettelkasten; sketchnotes; outlining; index cards; digital notebooks",
            ),
            (
                "productivity methods",
                "productivity systems",
                "the Pomodoro technique; time blocking; Getting Things Done; the Eisenhower matrix; kanban boards; daily reviews",
            ),
        ),
    )
    + _group(
        "wellness and self-care",
        (
            (
                "mental health activities",
                "ways to look after my head",
                "therapy sessions; support groups; breathwork; digital detoxes; art therapy; peer counselling",
            ),
            (
                "meditation types",
                "meditation styles",
                "body scans; loving-kindness meditation; walking meditation; mantra meditation; guided visualisations; Zen sitting",
            ),
            (
                "self-care activities",
                "treats for myself",
                "bubble baths; foot rubs; pedicures; sauna sessions; spa days; reading in bed",
            ),
            (
                "sleep habits",
                "bedtime habits",
                "white noise; weighted blankets; blackout curtains; sleep masks; early nights; lavender pillow spray",
            ),
            (
                "morning routine habits",
                "morning habits",
                "cold showers; morning runs; making the bed; lemon water; sunrise walks; reading the news",
            ),
            (
                "evening routine habits",
                "evening habits",
                "evening walks; planning tomorrow; tidying up; phone-free hours; stretching sessions; warm showers",
            ),
        ),
    )
    + _group(
        "career and finance",
        (
            ("career fields", "fields to work in", "nursing; architecture; teaching; data science; journalism; law"),
            (
                "types of volunteering",
                "volunteer work",
                "animal shelters; food banks; tutoring kids; beach cleanups; hospice visits; trail maintenance",
            ),
            (
                "investment types",
                "investments",
                "index funds; real estate; government bonds; dividend stocks; peer-to-peer lending; green energy funds",
            ),
            (
                "budget planning methods",
                "budgeting methods",
                "envelope budgeting; zero-based budgeting; the 50/30/20 rule; budgeting apps; cash-only weeks; no-spend months",
            ),
        ),
    )
    + _group(
        "media consumption",
        (
            (
                "social media content types",
                "things to scroll through",
                "cooking reels; cat videos; travel vlogs; DIY tutorials; memes; unboxing videos",
            ),
            (
                "news formats",
                "news sources",
                "morning newsletters; radio bulletins; longform magazines; evening broadcasts; news apps; local papers",
            ),
            (
                "podcast formats",
                "podcast formats",
                "interview shows; narrative series; panel chats; daily briefings; audio dramas; call-in shows",
            ),
            (
                "types of reading material",
                "reading material",
                "short stories; biographies; cookbooks; manga; poetry anthologies; comic strips",
            ),
            (
                "audio listening formats",
                "things to listen to",
                "audiobooks; radio plays; ambient soundscapes; recorded lectures; ASMR; vinyl albums",
            ),
            (
                "content creation types",
                "things to create online",
                "YouTube videos; blog posts; livestreams; short films; zines; digital illustrations",
            ),
        ),
    )
    + _group(
        "misc",
        (
            ("animals", "animals", "otters; red pandas; owls; axolotls; capybaras; hedgehogs"),
            (
                "dog breeds",
                "dog breeds",
                "border collies; dachshunds; golden retrievers; corgis; whippets; Bernese mountain dogs",
            ),
            (
                "collectibles",
                "collectibles",
                "vinyl figures; vintage postcards; stamps; trading cards; snow globes; enamel pins",
            ),
            (
                "subscription box types",
                "subscription boxes",
                "meal kits; book boxes; snack boxes; plant boxes; sock subscriptions; craft kits",
            ),
            (
                "car types",
                "cars",
                "convertibles; hatchbacks; pickup trucks; electric cars; classic cars; station wagons",
            ),
            (
                "home organization methods",
                "ways to organise my place",
                "labelled bins; the KonMari method; pegboards; drawer dividers; capsule wardrobes; vacuum storage bags",
            ),
            ("types of naps", "naps", "power naps; hammock naps; sofa naps; siestas; train naps; beach naps"),
            (
                "camping styles",
                "camping trips",
                "glamping; wild camping; car camping; canoe camping; hammock camping; festival camping",
            ),
            (
                "astrology interests",
                "astrology stuff",
                "birth charts; tarot readings; moon rituals; horoscopes; crystal healing; numerology",
            ),
        ),
    )
)

#: each preference stated alone (D.1.2): varied phrasing, one preference, nothing else
FACTS = (
    "I love {item} — it's my default whenever I want to treat myself.",
    "I'm a huge fan of {item}, especially on slow weekends.",
    "Nothing cheers me up quite like {item}.",
    "I've had a soft spot for {item} ever since I was a teenager.",
    "Honestly, {item} will always have a place in my heart.",
    "I keep coming back to {item}, year after year.",
    "Give me {item} any day of the week.",
    "Lately I've been really into {item}.",
    "I'd pick {item} over almost anything else.",
    "There's something about {item} that just works for me.",
    "People who know me know I adore {item}.",
    "My friends tease me about how much I like {item}.",
    "{Item} — one of my favourite things, full stop.",
    "I never get tired of {item}.",
)
#: holistic scenario questions whose good answer needs every preference (D.1.2 rule 3)
QUESTIONS = (
    "I'm planning the next few weeks and want to make room for the {noun} I enjoy — which ones should go on the list?",
    "A friend is putting together a surprise around my taste in {noun} — what should I tell them I like?",
    "I want to rotate through {noun} I genuinely enjoy so nothing gets stale — what belongs in the rotation?",
    "Someone is writing a little profile of me for a party; which {noun} should they say I'm into?",
    "My partner asked which {noun} would make me happy this month — what's the honest answer?",
)
